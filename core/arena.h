/* A bump allocator. Everything a model owns (names, arrays, opaque XML) lives in
 * one arena so that an immutable model is freed with one call and never leaks a
 * piece of itself. Allocations are 16-byte aligned and zeroed. */
#ifndef KG_ARENA_H
#define KG_ARENA_H

#include <stddef.h>

typedef struct kg_arena kg_arena;

/* NULL when memory is exhausted, as every allocation of the arena: the library
 * returns an error then, it does not abort (README, "Out of memory"). */
kg_arena *kg_arena_new(void);
void kg_arena_free(kg_arena *a);

/* Zeroed memory, or NULL. */
void *kg_arena_alloc(kg_arena *a, size_t size);
/* Copies, or NULL (also for s NULL). */
char *kg_arena_strdup(kg_arena *a, const char *s);
char *kg_arena_strndup(kg_arena *a, const char *s, size_t n);

#endif
