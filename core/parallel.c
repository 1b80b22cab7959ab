/* kg_parallel_for: a shared counter under a mutex hands out the jobs. */
#include "core/parallel.h"

#include <pthread.h>

typedef struct pfor {
    void (*fn)(void *ctx, int i);
    void *ctx;
    int n, next;
    pthread_mutex_t mu;
} pfor;

static void *pfor_run(void *arg) {
    pfor *f = arg;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        int i = f->next++;
        pthread_mutex_unlock(&f->mu);
        if (i >= f->n) return NULL;
        f->fn(f->ctx, i);
    }
}

void kg_parallel_for(int n, int threads, void (*fn)(void *ctx, int i), void *ctx) {
    pfor f = {fn, ctx, n, 0, PTHREAD_MUTEX_INITIALIZER};
    int nt = threads < 1 ? 1 : threads > KG_PARALLEL_MAX_THREADS ? KG_PARALLEL_MAX_THREADS : threads;
    if (nt > n) nt = n;
    pthread_t th[KG_PARALLEL_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < nt; t++)
        if (pthread_create(&th[started], NULL, pfor_run, &f) == 0) started++;
    pfor_run(&f);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}
