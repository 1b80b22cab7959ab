#include "core/strmap.h"
#include "core/str.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static uint64_t hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void kg_strmap_init(kg_strmap *m) { memset(m, 0, sizeof *m); }

void kg_strmap_free(kg_strmap *m) {
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* 0, or -1 when memory is exhausted (the map as it was) */
static int grow(kg_strmap *m) {
    size_t ncap = m->cap ? 2 * m->cap : 64;
    const char **keys = calloc(ncap, sizeof *keys);
    int *values = calloc(ncap, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t h = hash(m->keys[i]) & (ncap - 1);
        while (keys[h]) h = (h + 1) & (ncap - 1);
        keys[h] = m->keys[i];
        values[h] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = ncap;
    return 0;
}

int kg_strmap_put(kg_strmap *m, const char *key, int value) {
    if (2 * (m->count + 1) > m->cap && grow(m) != 0) {
        m->failed = 1;
        return -1;
    }
    size_t h = hash(key) & (m->cap - 1);
    while (m->keys[h]) {
        if (strcmp(m->keys[h], key) == 0) return m->values[h];
        h = (h + 1) & (m->cap - 1);
    }
    m->keys[h] = key;
    m->values[h] = value;
    m->count++;
    return -1;
}

int kg_strmap_get(const kg_strmap *m, const char *key) {
    if (!m->cap) return -1;
    size_t h = hash(key) & (m->cap - 1);
    while (m->keys[h]) {
        if (strcmp(m->keys[h], key) == 0) return m->values[h];
        h = (h + 1) & (m->cap - 1);
    }
    return -1;
}

char *kg_strmap_unique(const kg_strmap *m, const char *want) {
    size_t n = strlen(want) + 16;
    char *name = malloc(n);
    if (!name) return NULL;
    snprintf(name, n, "%s", want);
    for (int k = 2; kg_strmap_get(m, name) >= 0; k++) snprintf(name, n, "%s#%d", want, k);
    return name;
}

void kg_names_free(kg_names *p) {
    for (int k = 0; k < p->nmade; k++) free(p->made[k]);
    free(p->made);
    kg_strmap_free(&p->taken);
    memset(p, 0, sizeof *p);
}

const char *kg_names_join(kg_names *p, const char *a, const char *b, int *renamed) {
    char *want = kg_strf("%s.%s", a, b), *name = want ? kg_strmap_unique(&p->taken, want) : NULL;
    if (name && p->nmade == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        char **grown = realloc(p->made, (size_t)cap * sizeof *grown);
        if (grown) p->made = grown, p->cap = cap;
    }
    if (!name || p->nmade == p->cap) return free(want), free(name), NULL;
    if (renamed) *renamed = strcmp(name, want) != 0;
    free(want);
    p->made[p->nmade++] = name;
    kg_strmap_put(&p->taken, name, 0);
    return p->taken.failed ? NULL : name;
}
