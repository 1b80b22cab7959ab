/* Limits on hostile input (issue 26): entity expansion in XML, zip bombs in
 * .zae, errors in XML. Each is refused fast with a diagnostic code, and each can be raised
 * through the environment variable of its name. */
#define _GNU_SOURCE
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#include "formats/limits.h"
#include "io/load.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A URDF whose one link name references a `size`-character entity `refs`
 * times (the 160 KB file ran for minutes and took a gigabyte). */
static char *quadratic_urdf(size_t size, int refs) {
    size_t n = size + 6 * (size_t)refs + 512;
    char *s = malloc(n), *p = s;
    p += sprintf(p, "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY big \"");
    memset(p, 'A', size);
    p += size;
    p += sprintf(p, "\">\n]>\n<robot name=\"r\">\n<link name=\"");
    for (int i = 0; i < refs; i++) p += sprintf(p, "&big;");
    sprintf(p, "\"/>\n</robot>\n");
    return s;
}

static void test_entity_expansion_refused(void **state) {
    (void)state;
    char *text = quadratic_urdf(100000, 1500); /* 108 KB expanding to 150 MB */
    kg_diags d;
    kg_diags_init(&d);
    double t0 = now();
    kg_model *m = kg_test_load_string("quadratic.urdf", text, &d);
    double seconds = now() - t0;
    assert_null(m);
    const kg_diag *g = kg_test_find(&d, "xml.entity_expansion");
    if (!g) kg_test_print_diags(&d);
    assert_non_null(g);
    assert_int_equal(g->line, 6);
    assert_non_null(strstr(g->message, "KG_LIMIT_XML_ENTITY_EXPANSION"));
    if (seconds > 2) fail_msg("refusing took %.1f s", seconds);
    kg_diags_clear(&d);
    free(text);

    /* nested entities ("billion laughs"): libxml2's own check, under the same code */
    const char *laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">\n"
                         "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
                         "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
                         "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
                         "<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n]>\n"
                         "<robot name=\"r\"><link name=\"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\"/></robot>\n";
    kg_diags_init(&d);
    t0 = now();
    m = kg_test_load_string("laughs.urdf", laughs, &d);
    assert_null(m);
    assert_true(kg_test_count(&d, "xml.entity_expansion") >= 1);
    assert_true(now() - t0 < 2);
    kg_diags_clear(&d);
}

/* Below the limit, or with the limit raised, entities are substituted once
 * and read as text; external entities are never loaded. */
/* Just under the limit: 15 MB of text from 1000 references in one element.
 * Substituted by libxml2 (XML_PARSE_NOENT) this took 12 s under ASan, each
 * reference appended to the text before it by reallocation (the fuzzer found
 * it); substituted by kinegraph, once, it is linear. */
static void test_entities_under_limit_fast(void **state) {
    (void)state;
    size_t size = 15000;
    int refs = 1000;
    char *s = malloc(size + 6 * (size_t)refs + 512), *p = s;
    p += sprintf(p, "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY big \"");
    memset(p, 'A', size);
    p += size;
    p += sprintf(p, "\">\n]>\n<robot name=\"r\"><link name=\"a\"/><gazebo>");
    for (int i = 0; i < refs; i++) p += sprintf(p, "&big;");
    sprintf(p, "</gazebo></robot>\n");
    kg_diags d;
    kg_diags_init(&d);
    double t0 = now();
    kg_model *m = kg_test_load_string("under.urdf", s, &d);
    double seconds = now() - t0;
    assert_non_null(m);
    assert_int_equal(m->nextra, 1);
    assert_int_equal((int)strlen(m->extra[0].xml), (int)(size * (size_t)refs + strlen("<gazebo></gazebo>")));
    if (seconds > 2) fail_msg("reading took %.1f s", seconds);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(s);
}

static void test_entities_read(void **state) {
    (void)state;
    const char *text = "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY len \"0.5\">\n<!ENTITY nm \"arm\">\n"
                       "<!ENTITY secret SYSTEM \"/etc/hostname\">\n]>\n"
                       "<robot name=\"&nm;_robot\">\n"
                       "<link name=\"&nm;_base\"><inertial><mass value=\"&len;\"/>"
                       "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n"
                       "<link name=\"tip\"/>\n"
                       "<joint name=\"j\" type=\"fixed\"><parent link=\"&nm;_base\"/><child link=\"tip\"/></joint>\n"
                       "<gazebo>&secret;</gazebo>\n</robot>\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("entities.urdf", text, &d);
    assert_non_null(m);
    assert_string_equal(m->name, "arm_robot");
    assert_int_equal(kg_model_link(m, "arm_base"), 0);
    KG_ASSERT_NEAR(m->link[0].mass, 0.5, 0);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    /* the extra holds the text, and nothing of the external file */
    assert_int_equal(m->nextra, 1);
    assert_string_equal(m->extra[0].xml, "<gazebo/>");
    kg_model_free(m);
    kg_diags_clear(&d);

    /* an entity with markup puts its elements in; nested references in values */
    const char *markup = "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [\n<!ENTITY side \"left\">\n"
                         "<!ENTITY arm \"&side;_arm\">\n<!ENTITY links \"<link name='a'/><link name='&arm;'/>\">\n]>\n"
                         "<robot name=\"m\">&links;<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>"
                         "<child link=\"&arm;\"/></joint></robot>\n";
    kg_diags_init(&d);
    m = kg_test_load_string("markup.urdf", markup, &d);
    if (!m) kg_test_print_diags(&d);
    assert_non_null(m);
    assert_true(kg_model_link(m, "left_arm") > 0);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    kg_model_free(m);
    kg_diags_clear(&d);

    char *big = quadratic_urdf(1000, 100); /* 100 KB expanded */
    setenv("KG_LIMIT_XML_ENTITY_EXPANSION", "50000", 1);
    kg_diags_init(&d);
    m = kg_test_load_string("lowered.urdf", big, &d);
    assert_null(m);
    assert_int_equal(kg_test_count(&d, "xml.entity_expansion"), 1);
    kg_diags_clear(&d);
    unsetenv("KG_LIMIT_XML_ENTITY_EXPANSION");
    kg_diags_init(&d);
    m = kg_test_load_string("default.urdf", big, &d);
    assert_non_null(m);
    assert_int_equal((int)strlen(m->link[0].name), 100000);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(big);
}

/* A .zae holding `doc` (len bytes) as model.dae. */
static void write_zae(const char *path, const char *doc, size_t len) {
    int err;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    assert_non_null(z);
    zip_source_t *src = zip_source_buffer(z, doc, len, 0);
    assert_true(zip_file_add(z, "model.dae", src, 0) >= 0);
    assert_int_equal(zip_close(z), 0);
}

/* A small valid COLLADA document padded with `pad` blanks: it packs a
 * thousand times smaller, like a zip bomb. */
static char *padded_collada(size_t pad, size_t *len) {
    const char *head = "<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org/2008/03/COLLADASchema\" "
                       "version=\"1.5.0\"><asset><unit meter=\"1\"/></asset>";
    const char *tail = "<library_visual_scenes><visual_scene id=\"s\"><node id=\"n\" name=\"n\"/></visual_scene>"
                       "</library_visual_scenes><scene><instance_visual_scene url=\"#s\"/></scene></COLLADA>\n";
    *len = strlen(head) + pad + strlen(tail);
    char *s = malloc(*len + 1);
    strcpy(s, head);
    memset(s + strlen(head), ' ', pad);
    strcpy(s + strlen(head) + pad, tail);
    return s;
}

/* Garbage after a root element: libxml2 goes on to the end of a document it
 * has refused, an error every two bytes here (fuzz_zae found 8 MB of it packed
 * in a .zae: 4.2 million errors, a minute under the sanitizers). The parse
 * stops after KG_LIMIT_XML_ERRORS, and says so. */
static void test_xml_errors_stop(void **state) {
    (void)state;
    const char *head = "<robot name=\"r\">\n", *tail = "</robot>\n";
    size_t pairs = 1000000, hl = strlen(head);
    char *s = malloc(hl + 2 * pairs + strlen(tail) + 1);
    strcpy(s, head);
    for (size_t i = 0; i < pairs; i++) memcpy(s + hl + 2 * i, "< ", 2);
    strcpy(s + hl + 2 * pairs, tail);
    kg_diags d;
    kg_diags_init(&d);
    double t0 = now();
    kg_model *m = kg_test_load_string("garbage.urdf", s, &d);
    double seconds = now() - t0;
    assert_null(m);
    assert_int_equal(kg_test_count(&d, "xml.malformed"), KG_LIMIT_XML_ERRORS);
    const kg_diag *g = kg_test_find(&d, "xml.too_many_errors");
    if (!g) kg_test_print_diags(&d);
    assert_non_null(g);
    assert_non_null(strstr(g->message, "KG_LIMIT_XML_ERRORS"));
    assert_int_equal(g->line, 2);
    assert_int_equal((int)d.dropped, 0);
    if (seconds > 2) fail_msg("refusing took %.1f s", seconds);
    kg_diags_clear(&d);
    free(s);
}

static void test_zip_bomb(void **state) {
    (void)state;
    char path[] = "/tmp/kg_limits_XXXXXX.zae";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    size_t len;
    char *doc = padded_collada(8u << 20, &len); /* 8 MB packing to about 8 KB */
    write_zae(path, doc, len);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    assert_null(m);
    const kg_diag *g = kg_test_find(&d, "zae.ratio");
    if (!g) kg_test_print_diags(&d);
    assert_non_null(g);
    assert_non_null(strstr(g->message, "KG_LIMIT_ZAE_RATIO"));
    kg_diags_clear(&d);

    /* raised, it reads; the size limit, lowered, refuses it */
    setenv("KG_LIMIT_ZAE_RATIO", "100000", 1);
    kg_diags_init(&d);
    m = kg_load(path, NULL, &d);
    if (!m) kg_test_print_diags(&d);
    assert_non_null(m);
    kg_model_free(m);
    kg_diags_clear(&d);
    setenv("KG_LIMIT_ZAE_SIZE", "1000000", 1);
    kg_diags_init(&d);
    m = kg_load(path, NULL, &d);
    assert_null(m);
    assert_int_equal(kg_test_count(&d, "zae.too_large"), 1);
    kg_diags_clear(&d);
    unsetenv("KG_LIMIT_ZAE_RATIO");
    unsetenv("KG_LIMIT_ZAE_SIZE");

    /* an ordinary archive still reads */
    free(doc);
    doc = padded_collada(100, &len);
    write_zae(path, doc, len);
    kg_diags_init(&d);
    m = kg_load(path, NULL, &d);
    assert_non_null(m);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(doc);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entity_expansion_refused),
        cmocka_unit_test(test_entities_read),
        cmocka_unit_test(test_entities_under_limit_fast),
        cmocka_unit_test(test_zip_bomb),
        cmocka_unit_test(test_xml_errors_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
