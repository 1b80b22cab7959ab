/* Every input the fuzzers (fuzz/, ./setup.sh fuzz) or the issue-26 review
 * found, kept under tests/data/fuzz-regressions/HARNESS/, run through the same
 * code as its harness against the library built with ASan and UBSan (label
 * "sanitize"): no crash, leak or hang, and what is read writes and reads back. */
#define _DEFAULT_SOURCE /* DT_REG */
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../fuzz/fuzz_common.h"

#define DIR_OF(h) KG_SOURCE_DIR "/tests/data/fuzz-regressions/" h

/* format: a model format (NULL: told by the content), "map" (kg_fuzz_map) or
 * "retarget" (kg_fuzz_retarget: a file named refused_* must be refused by the
 * retargeting, any other retargeted) */
static int run_dir(const char *dir, const char *format, int export_all) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *buf = malloc((size_t)len + 1);
        size_t got = fread(buf, 1, (size_t)len, f);
        fclose(f);
        clock_t t0 = clock();
        kg_motion *mo = NULL;
        int map = format && !strcmp(format, "map"), retarget = format && !strcmp(format, "retarget");
        if (map) kg_fuzz_map(buf, got);
        const char *how = NULL;
        if (retarget) {
            int rc = kg_fuzz_retarget(buf, got);
            how = rc > 0 ? "retargeted" : rc == 0 ? "refused by the retargeting" : "refused";
            if (rc != (strncmp(e->d_name, "refused_", 8) ? 1 : 0)) fail_msg("%s: %s, not as its name says", path, how);
        }
        kg_model *m = map || retarget ? NULL : kg_fuzz_load(format, buf, got, &mo);
        if (m && export_all) kg_fuzz_export_all(m, mo);
        double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("%s: %s in %.2f s\n", path, map ? "applied" : how ? how : m ? "read" : "refused", s);
        if (s > 10) fail_msg("%s took %.1f s (the fuzzers call more than 10 s a hang)", path, s);
        kg_model_free(m);
        kg_motion_free(mo);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static void test_regressions(void **state) {
    (void)state;
    int n = run_dir(DIR_OF("urdf"), "urdf", 0) + run_dir(DIR_OF("collada"), "collada", 0) +
            run_dir(DIR_OF("zae"), "zae", 0) + run_dir(DIR_OF("bvh"), "bvh", 0) + run_dir(DIR_OF("export"), NULL, 1) +
            run_dir(DIR_OF("map"), "map", 0) + run_dir(DIR_OF("retarget"), "retarget", 0);
    assert_true(n >= 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_regressions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
