/* SRDF (MoveIt's semantic robot description): the link pairs whose collisions
 * it disables. Only <disable_collisions link1 link2 [reason]/> is read; groups,
 * end effectors and virtual joints are MoveIt's business. */
#include <stdlib.h>

#include "formats/fileio.h"
#include "formats/xml.h"
#include "importers/importers.h"

int kg_import_srdf_pairs(const char *path, const kg_model *m, kg_link_pair **pairs, int *npairs, kg_diags *d) {
    *pairs = NULL, *npairs = 0;
    size_t len;
    char *buf = kg_read_file(path, &len, d);
    if (!buf) return -1;
    kg_xml x;
    if (kg_xml_parse(&x, buf, len, path, d) != 0) {
        free(buf);
        return -1;
    }
    int rc = 0, cap = 0;
    xmlNodePtr root = xmlDocGetRootElement(x.doc);
    if (!root || !kg_xml_is(root, "robot")) {
        kg_diag_add(d, KG_ERROR, "srdf.root", path, kg_xml_line(root), root ? (const char *)root->name : NULL,
                    "an SRDF's root element is <robot>");
        rc = -1;
    }
    for (xmlNodePtr n = rc == 0 ? kg_xml_first(root) : NULL; n; n = kg_xml_next(n)) {
        if (!kg_xml_is(n, "disable_collisions")) continue;
        const char *a = kg_xml_attr(&x, n, "link1"), *b = kg_xml_attr(&x, n, "link2");
        if (!a || !b) {
            kg_diag_add(d, KG_ERROR, "srdf.pair", path, kg_xml_line(n), "disable_collisions",
                        "<disable_collisions> needs link1 and link2");
            rc = -1;
            continue;
        }
        int la = kg_model_link(m, a), lb = kg_model_link(m, b);
        if (la < 0 || lb < 0) { /* an SRDF written for a fuller model than the one loaded */
            kg_diag_add(d, KG_WARNING, "srdf.unknown_link", path, kg_xml_line(n), "disable_collisions",
                        "'%s' is not a link of '%s': the pair is left out", la < 0 ? a : b, m->name ? m->name : "");
            continue;
        }
        if (*npairs == cap) {
            cap = cap ? 2 * cap : 64;
            kg_link_pair *grown = realloc(*pairs, (size_t)cap * sizeof *grown);
            if (!grown) {
                kg_diag_add(d, KG_ERROR, "srdf.memory", path, 0, NULL, "out of memory");
                rc = -1;
                break;
            }
            *pairs = grown;
        }
        (*pairs)[(*npairs)++] = (kg_link_pair){la, lb, 0, kg_xml_line(n)};
    }
    if (x.oom) {
        kg_diag_out_of_memory(d, x.oom_at, path, "while reading the SRDF");
        rc = -1;
    }
    kg_xml_close(&x);
    free(buf);
    if (rc != 0) free(*pairs), *pairs = NULL, *npairs = 0;
    return rc;
}
