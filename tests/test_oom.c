/* Out of memory: the library returns an error, it does not abort (README, "Out
 * of memory"). This test is linked with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc, so every allocation the library makes goes through the
 * wrappers below, which fail the N-th one on request. For each N from the
 * first to the last allocation a load makes, a child process loads the file
 * with allocation N failing: it must end normally (not abort, not crash; under
 * ASan, without a leak) with either the model (an allocation whose failure is
 * harmless, a shrink) or NULL and an io.memory error as the only error (the
 * diagnostics made after the failure, which may be false, dropped). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/load.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

static long allocations, fail_at = -1;

static int failing(void) { return allocations++ == fail_at; }
void *__wrap_malloc(size_t n) { return failing() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return failing() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return failing() ? NULL : __real_realloc(p, n); }

/* the child's exit statuses: apart from ASan's (1 after an error or a leak) */
enum { LOADED = 10, SAID, WRONG };

/* Loads path (allocation fail_at failing); LOADED, SAID (NULL, and io.memory
 * the only error) or WRONG (printed). */
static int load(const char *path) {
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(path, &o, &mo, &d);
    size_t errors = kg_diags_count(&d, KG_ERROR), memory = 0;
    for (size_t i = 0; i < d.count; i++) memory += !strcmp(d.items[i].code, "io.memory");
    int rc = m ? LOADED : memory == 1 && errors == 1 ? SAID : WRONG;
    if (rc == WRONG)
        for (size_t i = 0; i < d.count; i++)
            printf("  allocation %ld failing: %s: %s [%s]\n", fail_at, kg_severity_name(d.items[i].severity),
                   d.items[i].message, d.items[i].code);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
    return rc;
}

/* Fails each allocation of loading path in turn; returns how many there are. */
static long fail_each(const char *path) {
    fail_at = -1, allocations = 0;
    assert_int_equal(load(path), LOADED);
    long total = allocations, said = 0;
    fflush(stdout);
    for (long n = 0; n < total; n++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            fail_at = n, allocations = 0;
            exit(load(path)); /* exit, not _exit: LeakSanitizer checks at exit */
        }
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (!WIFEXITED(st)) fail_msg("%s: allocation %ld failing killed the load (signal %d)", path, n, WTERMSIG(st));
        if (WEXITSTATUS(st) != LOADED && WEXITSTATUS(st) != SAID)
            fail_msg("%s: allocation %ld failing: exit %d (%d: not said; 1: ASan found an error or a leak)", path, n,
                     WEXITSTATUS(st), WRONG);
        said += WEXITSTATUS(st) == SAID;
    }
    printf("%s: %ld allocations, each failed in turn: %ld said out of memory, %ld loaded anyway\n", path, total, said,
           total - said);
    assert_true(said > total / 2); /* nearly all are needed: only a shrink may fail harmlessly */
    return total;
}

static void test_urdf(void **state) {
    (void)state;
    assert_true(fail_each(KG_SOURCE_DIR "/samples/humanoid.urdf") >= 20);
}

static void test_bvh(void **state) {
    (void)state;
    assert_true(fail_each(KG_SOURCE_DIR "/samples/walk.bvh") >= 50);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_urdf), cmocka_unit_test(test_bvh)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
