/* A bump allocator. Everything a model owns (names, arrays, opaque XML) lives in
 * one arena so that an immutable model is freed with one call and never leaks a
 * piece of itself. Allocations are 16-byte aligned and zeroed. */
#ifndef KG_ARENA_H
#define KG_ARENA_H

#include <stddef.h>

typedef struct kg_arena kg_arena;

kg_arena *kg_arena_new(void);
void kg_arena_free(kg_arena *a);

/* Zeroed memory; aborts the process when memory is exhausted (a model that
 * cannot be allocated cannot be reported on either). */
void *kg_arena_alloc(kg_arena *a, size_t size);
char *kg_arena_strdup(kg_arena *a, const char *s);
char *kg_arena_strndup(kg_arena *a, const char *s, size_t n);

/* Allocation helpers for the rest of the library: abort on exhaustion. */
void *kg_xmalloc(size_t size);
void *kg_xcalloc(size_t n, size_t size);
void *kg_xrealloc(void *p, size_t size);
char *kg_xstrdup(const char *s);
/* p (an array of *cap elements of `size` bytes, NULL when *cap is 0) with room
 * for element n: *cap doubles when n reaches it. Arrays appended to one element
 * at a time grow with this, not by one element per append: that copies the
 * whole array on every append (quadratic; ASan's realloc never grows in place,
 * and reading back the COLLADA written for a 126-joint BVH spent a fifth of its
 * time there). */
void *kg_xgrow(void *p, int n, int *cap, size_t size);

#endif
