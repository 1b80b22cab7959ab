#include "core/arena.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KG_ARENA_CHUNK (64 * 1024)

typedef struct kg_chunk {
    struct kg_chunk *next;
    size_t size, used;
    /* payload follows, aligned to 16 bytes */
} kg_chunk;

struct kg_arena {
    kg_chunk *head;
};

static void oom(void) {
    fputs("kinegraph: out of memory\n", stderr);
    abort();
}

void *kg_xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) oom();
    return p;
}

void *kg_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom();
    return p;
}

void *kg_xrealloc(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) oom();
    return q;
}

void *kg_xgrow(void *p, int n, int *cap, size_t size) {
    if (n < *cap) return p;
    size_t c = *cap > 0 ? (size_t)*cap * 2 : 8;
    if (c < (size_t)n + 1) c = (size_t)n + 1;
    if (c > INT_MAX) c = INT_MAX;
    if (n >= INT_MAX || c > SIZE_MAX / (size ? size : 1)) oom(); /* counts are ints everywhere */
    p = kg_xrealloc(p, c * size);
    *cap = (int)c;
    return p;
}

char *kg_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = kg_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

static size_t header_size(void) { return (sizeof(kg_chunk) + 15) & ~(size_t)15; }

kg_arena *kg_arena_new(void) { return kg_xcalloc(1, sizeof(kg_arena)); }

void kg_arena_free(kg_arena *a) {
    if (!a) return;
    kg_chunk *c = a->head;
    while (c) {
        kg_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

void *kg_arena_alloc(kg_arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    kg_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t cap = size > KG_ARENA_CHUNK ? size : KG_ARENA_CHUNK;
        if (cap > SIZE_MAX - header_size()) oom();
        c = kg_xmalloc(header_size() + cap);
        c->size = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c + header_size() + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *kg_arena_strndup(kg_arena *a, const char *s, size_t n) {
    char *d = kg_arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *kg_arena_strdup(kg_arena *a, const char *s) {
    if (!s) return NULL;
    return kg_arena_strndup(a, s, strlen(s));
}
