/* diag: declared in include/kinegraph/model.h (the public API). */
#ifndef KG_DIAG_H
#define KG_DIAG_H

#include "kinegraph/model.h"

/* Out of memory while reading (the library's policy: an error, not an abort;
 * README "Out of memory"): the diagnostics from index `since` on came after
 * the allocation that failed, and may be false (a name that could not be
 * copied reads as missing); they are dropped, and one error io.memory takes
 * their place, naming what was being done (none when the last diagnostic is
 * already that error: one failure, one error). */
void kg_diag_out_of_memory(kg_diags *d, size_t since, const char *file, const char *doing);
/* 1 when an out-of-memory error (io.memory, or a module's own: mesh.memory,
 * dynamics.memory, ...) is among the diagnostics from index `since` on. */
int kg_diags_memory(const kg_diags *d, size_t since);

#endif
