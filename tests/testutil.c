#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/builder.h"
#include "io/load.h"

const char *kg_test_data_dir(void) {
    static char buf[4096];
    const char *env = getenv("KINEGRAPH_DATA");
    const char *dir = env && *env ? env : KG_SOURCE_DIR "/../shared/data";
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        static int said;
        if (!said++) /* once: tests that also cover the sample go on with it alone */
            printf("SKIPPED (in part): the shared corpus is absent (%s; set KINEGRAPH_DATA): its models are left out\n", dir);
        return NULL;
    }
    snprintf(buf, sizeof buf, "%s", dir);
    return buf;
}

int kg_test_remove_dir(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

kg_model *kg_test_load(const char *path) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    kg_diags_clear(&d);
    if (!m) fail_msg("%s does not load", path);
    return m;
}

kg_model *kg_test_four_bar(double a, double c, double b, double d, kg_joint_type type, kg_diags *diags) {
    kg_builder *bl = kg_builder_new("four_bar", "test", diags);
    kg_builder_set_name(bl, "four_bar");
    const char *links[] = {"ground", "L1", "L2", "L3", "pivot"};
    for (int i = 0; i < 5; i++) kg_builder_add_link(bl, links[i], i + 1);
    const char *names[] = {"J1", "J2", "J3", "J4"};
    const double x[] = {0, a, c, b};
    for (int i = 0; i < 4; i++) {
        kg_joint *j = kg_builder_add_joint(bl, names[i], type, links[i], links[i + 1], 1);
        j->pos[0] = x[i];
        j->axis[0] = 0;
        j->axis[2] = 1;
    }
    kg_builder_add_joint(bl, "D", KG_JOINT_FIXED, "ground", "pivot", 0)->pos[0] = d;
    return kg_builder_finish(bl);
}

kg_model *kg_test_load_string(const char *name, const char *text, kg_diags *d) {
    kg_load_options o = {0};
    o.resolver.ignore_env = 1;
    return kg_load_buffer(name, text, strlen(text), &o, d);
}

int kg_test_count(const kg_diags *d, const char *code) {
    int n = 0;
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].code, code) == 0) n++;
    return n;
}

const kg_diag *kg_test_find(const kg_diags *d, const char *code) {
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].code, code) == 0) return &d->items[i];
    return NULL;
}

void kg_test_print_diags(const kg_diags *d) {
    for (size_t i = 0; i < d->count; i++) {
        const kg_diag *g = &d->items[i];
        printf("  %s:%d: %s: %s [%s]\n", g->file ? g->file : "-", g->line, kg_severity_name(g->severity),
               g->message, g->code);
    }
}

int kg_test_reference_file(const char *file, const char *data, char *path, size_t size) {
    if (strncmp(file, "@source/", 8) == 0) snprintf(path, size, "%s/%s", KG_SOURCE_DIR, file + 8);
    else if (data) snprintf(path, size, "%s/%s", data, file);
    else return 0;
    return 1;
}

json_t *kg_test_open_reference(const char *ref_path, const char *data, char *path, size_t size, const char **file) {
    json_error_t err;
    json_t *ref = json_load_file(ref_path, 0, &err);
    if (!ref) fail_msg("%s: %s", ref_path, err.text);
    *file = json_string_value(json_object_get(ref, "file"));
    if (!*file) fail_msg("%s: no \"file\"", ref_path);
    if (!kg_test_reference_file(*file, data, path, size)) {
        json_decref(ref);
        return NULL;
    }
    return ref;
}

double kg_test_frame_scale(json_t *nodes) {
    const char *name;
    json_t *nd;
    double scale = 1;
    json_object_foreach(nodes, name, nd) for (int a = 0; a < 3; a++) scale =
        fmax(scale, fabs(json_number_value(json_array_get(json_object_get(nd, "position"), (size_t)a))));
    return scale;
}

double kg_test_pose_error(const kg_data *kd, int i, json_t *node, double scale) {
    double e = 0;
    json_t *pos = json_object_get(node, "position"), *rot = json_object_get(node, "rotation");
    for (int a = 0; a < 3; a++) {
        e = fmax(e, fabs(kd->link_pos[3 * i + a] - json_number_value(json_array_get(pos, (size_t)a))) / scale);
        for (int b = 0; b < 3; b++)
            e = fmax(e, fabs(kd->link_rot[9 * i + 3 * a + b] -
                             json_number_value(json_array_get(json_array_get(rot, (size_t)a), (size_t)b))));
    }
    return e;
}

char *kg_test_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return calloc(1, 1);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t r = n > 0 ? fread(s, 1, (size_t)n, f) : 0;
    s[r] = 0;
    fclose(f);
    return s;
}

char *kg_test_replace_after(char *text, const char *at, const char *from, const char *to) {
    char *a = strstr(text, at), *f = a ? strstr(a, from) : NULL;
    if (!f) fail_msg("'%s' after '%s' not found", from, at);
    size_t head = (size_t)(f - text), n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    memcpy(out, text, head);
    snprintf(out + head, n - head, "%s%s", to, f + strlen(from));
    free(text);
    return out;
}

/* fmt with every %c (at most 8) the letter c, malloc'd. */
static char *sided(const char *fmt, char c) {
    int n = snprintf(NULL, 0, fmt, c, c, c, c, c, c, c, c);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    assert_non_null(s);
    snprintf(s, (size_t)n + 1, fmt, c, c, c, c, c, c, c, c);
    return s;
}

char *kg_test_replace_sides(char *text, const char *at, const char *from, const char *to) {
    for (int side = 0; side < 2; side++) {
        const char c = side ? 'r' : 'l';
        char *a = sided(at, c), *f = sided(from, c), *t = sided(to, c);
        text = kg_test_replace_after(text, a, f, t);
        free(a), free(f), free(t);
    }
    return text;
}

char *kg_test_turn_sample_feet(char *text) {
    for (int side = 0; side < 2; side++) {
        char roll[64], foot[64], sole[64];
        snprintf(roll, sizeof roll, "<joint name=\"%c_ankle_roll\"", side ? 'r' : 'l');
        snprintf(foot, sizeof foot, "<link name=\"%c_foot\">", side ? 'r' : 'l');
        snprintf(sole, sizeof sole, "<joint name=\"%c_sole_fixed\"", side ? 'r' : 'l');
        text = kg_test_replace_after(text, roll, "rpy=\"0 0 0\"", "rpy=\"0 -1.5707963267948966 0\"");
        text = kg_test_replace_after(text, roll, "<axis xyz=\"1 0 0\"/>", "<axis xyz=\"0 0 -1\"/>");
        for (int k = 0; k < 3; k++) /* inertial, visual, collision */
            text = kg_test_replace_after(text, foot, "<origin xyz=\"0.03 0 -0.04\" rpy=\"0 0 0\"/>",
                                         "<origin xyz=\"-0.04 0 -0.03\" rpy=\"0 1.5707963267948966 0\"/>");
        text = kg_test_replace_after(text, sole, "xyz=\"0 0 -0.05\"", "xyz=\"-0.05 0 0\"");
    }
    return text;
}

int kg_test_run_kinegraph(const char *dir, const char *args) {
    size_t n = strlen(args) + 3 * strlen(dir) + sizeof KG_BINARY_DIR + 64;
    char *cmd = malloc(n);
    if (!cmd) return -1;
    snprintf(cmd, n, "'%s/kinegraph' %s >'%s/out' 2>'%s/err'", KG_BINARY_DIR, args, dir, dir);
    int st = system(cmd);
    free(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int kg_test_run_captured(const char *dir, const char *args, char **out, char **err) {
    int st = kg_test_run_kinegraph(dir, args);
    char p[600];
    snprintf(p, sizeof p, "%s/out", dir);
    *out = kg_test_slurp(p);
    snprintf(p, sizeof p, "%s/err", dir);
    *err = kg_test_slurp(p);
    return st;
}
