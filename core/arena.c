#include "core/arena.h"

#include <stdint.h>
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

static size_t header_size(void) { return (sizeof(kg_chunk) + 15) & ~(size_t)15; }

kg_arena *kg_arena_new(void) { return calloc(1, sizeof(kg_arena)); }

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
    if (size > SIZE_MAX - 15) return NULL;
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    kg_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t cap = size > KG_ARENA_CHUNK ? size : KG_ARENA_CHUNK;
        if (cap > SIZE_MAX - header_size() || !(c = malloc(header_size() + cap))) return NULL;
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
    char *d = n < SIZE_MAX ? kg_arena_alloc(a, n + 1) : NULL;
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *kg_arena_strdup(kg_arena *a, const char *s) {
    if (!s) return NULL;
    return kg_arena_strndup(a, s, strlen(s));
}
