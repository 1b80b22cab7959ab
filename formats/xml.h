/* XML helpers on libxml2 shared by the XML importers (URDF, COLLADA).
 *
 * Every diagnostic carries the file and line of the element concerned. Real
 * files are messy, so the reader is tolerant where the intent is clear: a
 * misspelt or misplaced XML declaration and undeclared namespace prefixes are
 * warnings; anything else that is not well-formed is an error with its line. */
#ifndef KG_XML_H
#define KG_XML_H

#include <libxml/tree.h>
#include <stddef.h>
#include <stdio.h>

#include "core/diag.h"

typedef struct kg_xml {
    xmlDocPtr doc;
    const char *file;
    kg_diags *diags;
    char **owned; /* strings handed out by kg_xml_attr that need freeing */
    int nowned, capowned;
    /* Memory ran out in kg_xml_attr or kg_xml_dump (which then returned NULL):
     * the reader must fail, with kg_diag_out_of_memory(diags, oom_at, ...). */
    int oom;
    size_t oom_at;
} kg_xml;

/* Marks x out of memory, once (oom_at: the diagnostics then), for a reader
 * whose own allocation failed while reading x: it then fails as after a
 * failed kg_xml_attr. Returns NULL. */
void *kg_xml_out_of_memory(kg_xml *x);

/* Parses buf (len bytes) named `file`. Returns 0 and fills x on success; -1 with
 * an error diagnostic when the document is not usable. */
int kg_xml_parse(kg_xml *x, const char *buf, size_t len, const char *file, kg_diags *d);
void kg_xml_close(kg_xml *x);

static inline int kg_xml_line(xmlNodePtr n) { return n ? (int)xmlGetLineNo(n) : 0; }

/* Element children: iterate with kg_xml_first(n) / kg_xml_next(c); or by name
 * (only elements with no namespace prefix match a name). */
xmlNodePtr kg_xml_first(xmlNodePtr n);
xmlNodePtr kg_xml_next(xmlNodePtr c);
xmlNodePtr kg_xml_child(xmlNodePtr n, const char *name);
int kg_xml_is(xmlNodePtr n, const char *name);

/* The attribute's value, or NULL when absent. Valid until kg_xml_close. */
const char *kg_xml_attr(kg_xml *x, xmlNodePtr n, const char *name);

/* Reads exactly `count` finite numbers separated by white space from attribute
 * `name`. Returns 1 when read, 0 when the attribute is absent (out untouched),
 * -1 when malformed (an error diagnostic naming file, line, element and value). */
int kg_xml_doubles(kg_xml *x, xmlNodePtr n, const char *name, double *out, int count);
static inline int kg_xml_double(kg_xml *x, xmlNodePtr n, const char *name, double *out) {
    return kg_xml_doubles(x, n, name, out, 1);
}

/* The element serialised as XML (malloc'd). */
char *kg_xml_dump(kg_xml *x, xmlNodePtr n);
/* Writes s as XML text or attribute content (HTML and SVG too): & < > " '
 * escaped, line feed, carriage return and tab as character references (so an
 * attribute keeps them), other control characters, U+FFFE and U+FFFF (which
 * XML 1.0 cannot hold) as '?', and the non-ASCII bytes of text that is not
 * UTF-8 as '?'. NULL writes nothing. */
void kg_xml_escape(FILE *f, const char *s);

/* Parses a whitespace-separated list of exactly `count` finite doubles from s.
 * Returns 0 on success. */
int kg_parse_doubles(const char *s, double *out, int count);

#endif
