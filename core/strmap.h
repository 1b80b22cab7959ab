/* String -> int map (open addressing, FNV-1a). Keys are borrowed, not copied:
 * they must outlive the map. Used to resolve names while building a model. */
#ifndef KG_STRMAP_H
#define KG_STRMAP_H

#include <stddef.h>

typedef struct kg_strmap {
    const char **keys;
    int *values;
    size_t cap, count;
    int failed; /* memory ran out: a key was not stored (the map's user gives up) */
} kg_strmap;

void kg_strmap_init(kg_strmap *m);
void kg_strmap_free(kg_strmap *m);
/* Returns the existing value if the key is present (and leaves it), else inserts
 * and returns -1. When memory runs out the key is not inserted: -1 still, and
 * m->failed is set, once and for all, for the caller to check when it is done
 * putting (one check instead of one per call). */
int kg_strmap_put(kg_strmap *m, const char *key, int value);
/* -1 when absent */
int kg_strmap_get(const kg_strmap *m, const char *key);
/* `want`, or "want#2", "want#3", ... the first not in m, as a new string the
 * caller frees (not put in m); NULL when memory runs out. Any length: a name
 * cut to a fixed buffer never became new (the loop did not end) and could
 * end inside a UTF-8 character. */
char *kg_strmap_unique(const kg_strmap *m, const char *want);

/* Names in use (`taken`: put the ones a file already has) and the ones made
 * for it, owned until kg_names_free: for writers that split a joint into
 * parts named "joint.part", unique among all the names. Zeroed is empty. */
typedef struct kg_names {
    kg_strmap taken;
    char **made;
    int nmade, cap;
} kg_names;

void kg_names_free(kg_names *p);
/* "a.b", or "a.b#2", "a.b#3", ... when taken: a name of any length, owned by
 * p and put in p->taken; NULL when memory runs out. *renamed (may be NULL)
 * says whether a number was added. */
const char *kg_names_join(kg_names *p, const char *a, const char *b, int *renamed);

#endif
