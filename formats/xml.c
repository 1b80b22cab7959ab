#include "formats/xml.h"
#include "formats/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "formats/limits.h"
#include "formats/number.h"

typedef struct err_sink {
    const char *file;
    kg_diags *diags;
    int fatal;               /* fatal errors so far: the document is refused at the first */
    xmlParserCtxtPtr ctxt;
} err_sink;

/* After KG_LIMIT_XML_ERRORS fatal errors the parse stops. libxml2 goes on to
 * the end of a document it has refused, and garbage gives an error every few
 * bytes: 8 MB unpacked from a .zae made 4.2 million of them, 2.2 s (a minute
 * under the fuzzers' sanitizers) spent saying nothing new. Stopping is what
 * later libxml2's xmlHaltParser does, flags only: 2.9's also frees the input,
 * which the parser may still be reading when it calls this handler. */
static void stop_parsing(err_sink *s, int line) {
    kg_diag_add(s->diags, KG_ERROR, "xml.too_many_errors", s->file, line, NULL,
                "more than %d errors in this XML document (KG_LIMIT_XML_ERRORS); the rest was not read",
                KG_LIMIT_XML_ERRORS);
    if (s->ctxt) {
        s->ctxt->instate = XML_PARSER_EOF;
        s->ctxt->disableSAX = 1;
    }
}

static void on_error(void *ud, xmlErrorPtr e) {
    err_sink *s = ud;
    if (e->level == XML_ERR_FATAL && s->fatal >= KG_LIMIT_XML_ERRORS) { /* stopped, or stopping */
        if (s->fatal == KG_LIMIT_XML_ERRORS) { /* said once; the count stops here */
            s->fatal++;
            stop_parsing(s, e->line);
        }
        return;
    }
    char msg[512];
    snprintf(msg, sizeof msg, "%s", e->message ? e->message : "XML error");
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    if (e->level == XML_ERR_FATAL && e->code == XML_ERR_ENTITY_LOOP) { /* also its amplification check */
        s->fatal++;
        kg_diag_add(s->diags, KG_ERROR, "xml.entity_expansion", s->file, e->line, NULL,
                    "entity references nest or expand too far (%s)", msg);
    } else if (e->level == XML_ERR_FATAL && strstr(msg, "Excessive depth")) { /* libxml2 names its own option */
        s->fatal++;
        kg_diag_add(s->diags, KG_ERROR, "xml.too_deep", s->file, e->line, NULL,
                    "elements nested deeper than %d levels (KG_LIMIT_XML_DEPTH)", KG_LIMIT_XML_DEPTH);
    } else if (e->level == XML_ERR_FATAL) {
        s->fatal++;
        kg_diag_add(s->diags, KG_ERROR, "xml.malformed", s->file, e->line, NULL,
                    "not well-formed XML: %s", msg);
    } else if (e->domain == XML_FROM_NAMESPACE) {
        kg_diag_add(s->diags, KG_WARNING, "xml.namespace", s->file, e->line, NULL, "%s", msg);
    } else {
        kg_diag_add(s->diags, KG_WARNING, "xml.warning", s->file, e->line, NULL, "%s", msg);
    }
}

/* A few files start with '<?xml verison="1.0"?>' (TinyXML accepts it; libxml2
 * does not) or have white space before the declaration. When the declaration is
 * malformed or misplaced, blank it out (keeping line numbers) and warn. */
static void fix_declaration(char *buf, size_t len, const char *file, kg_diags *d) {
    size_t i = 0;
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
        (unsigned char)buf[2] == 0xBF)
        i = 3;
    size_t start = i;
    while (i < len && isspace((unsigned char)buf[i])) i++;
    if (len - i < 6 || memcmp(buf + i, "<?xml", 5) != 0 || !isspace((unsigned char)buf[i + 5])) return;
    size_t decl = i, end = i + 5;
    while (end + 1 < len && !(buf[end] == '?' && buf[end + 1] == '>')) end++;
    if (end + 1 >= len) return; /* unterminated: let the parser report it */
    end += 2;
    int ok = 1, has_version = 0;
    const char *p = buf + decl + 5, *e = buf + end - 2;
    while (ok) {
        while (p < e && isspace((unsigned char)*p)) p++;
        if (p >= e) break;
        const char *name = p;
        while (p < e && (isalnum((unsigned char)*p) || *p == '_' || *p == '-')) p++;
        size_t nl = (size_t)(p - name);
        while (p < e && isspace((unsigned char)*p)) p++;
        if (nl == 0 || p >= e || *p != '=') { ok = 0; break; }
        p++;
        while (p < e && isspace((unsigned char)*p)) p++;
        if (p >= e || (*p != '"' && *p != '\'')) { ok = 0; break; }
        char quote = *p++;
        while (p < e && *p != quote) p++;
        if (p >= e) { ok = 0; break; }
        p++;
        if (nl == 7 && memcmp(name, "version", 7) == 0) has_version = 1;
        else if (!(nl == 8 && memcmp(name, "encoding", 8) == 0) &&
                 !(nl == 10 && memcmp(name, "standalone", 10) == 0))
            ok = 0;
    }
    if (ok && has_version && decl == start) return;
    int line = 1;
    for (size_t k = 0; k < decl; k++)
        if (buf[k] == '\n') line++;
    char text[128];
    size_t tl = end - decl < sizeof text - 1 ? end - decl : sizeof text - 1;
    memcpy(text, buf + decl, tl);
    text[tl] = 0;
    for (char *c = text; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    kg_diag_add(d, KG_WARNING, "xml.declaration", file, line, NULL,
                ok && has_version ? "XML declaration '%s' is not at the start of the file; ignored"
                                  : "malformed XML declaration '%s' ignored",
                text);
    for (size_t k = decl; k < end; k++)
        if (buf[k] != '\n' && buf[k] != '\r') buf[k] = ' ';
}

/* ---- entities ----
 * Without XML_PARSE_NOENT libxml2 leaves each entity reference in the tree and
 * every reader of the text expands it again (xmlNodeListGetString, by repeated
 * concatenation: quadratic). libxml2 2.9 stops nested amplification ("billion
 * laughs") while parsing, but not one large entity referenced many times: 115
 * KB of URDF made a gigabyte of text and ran for minutes. Substituting with
 * XML_PARSE_NOENT is no cure: libxml2 appends each substituted text to the one
 * before it by reallocation, quadratic again (the fuzzer found 15 MB of text
 * taking 12 s). So the expanded size of a document that references entities is
 * measured first (each entity's size once, kept in its _private), refused above
 * KG_LIMIT_XML_ENTITY_EXPANSION, and else each reference is replaced in the
 * tree by its text, built once in a growing buffer: no reader expands anything
 * afterwards, and extras copied from the document carry text, not references
 * to a DTD the written file does not have. */

typedef struct expansion {
    xmlDocPtr doc;
    unsigned long long total, cap;
    long refs;
    xmlNodePtr where; /* the reference that passed the cap */
} expansion;

static unsigned long long list_size(expansion *e, xmlNodePtr first, xmlNodePtr stop, int depth);

/* An entity's expanded size (memoised in _private as size + 2; 1 while being
 * measured: a loop, which libxml2 reports itself, counts as too large). */
static unsigned long long entity_size(expansion *e, xmlEntityPtr ent, int depth) {
    if (!ent || ent->etype != XML_INTERNAL_GENERAL_ENTITY) return 0; /* external ones are never loaded */
    uintptr_t memo = (uintptr_t)ent->_private;
    if (memo == 1 || depth > 64) return e->cap + 1;
    if (memo) return (unsigned long long)(memo - 2);
    ent->_private = (void *)1;
    unsigned long long n = ent->children ? list_size(e, ent->children, (xmlNodePtr)ent, depth + 1)
                                         : (unsigned long long)(ent->length > 0 ? ent->length : 0);
    if (n > e->cap) n = e->cap + 1;
    ent->_private = (void *)(uintptr_t)(n + 2);
    return n;
}

static unsigned long long node_size(expansion *e, xmlNodePtr n, int depth) {
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) return n->content ? strlen((char *)n->content) : 0;
    if (n->type != XML_ENTITY_REF_NODE) return 0;
    if (depth == 0) e->refs++;
    return entity_size(e, xmlGetDocEntity(e->doc, n->name), depth);
}

/* The text of the list `first` and everything below it (attribute values
 * included), walked without recursion (documents nest 2 x 10^5 deep); stop is
 * the list's parent. Stops once past the cap. */
static unsigned long long list_size(expansion *e, xmlNodePtr first, xmlNodePtr stop, int depth) {
    unsigned long long sum = 0;
    for (xmlNodePtr n = first; n && sum <= e->cap;) {
        unsigned long long k = node_size(e, n, depth);
        if (n->type == XML_ELEMENT_NODE)
            for (xmlAttrPtr a = n->properties; a; a = a->next)
                for (xmlNodePtr v = a->children; v; v = v->next) k += node_size(e, v, depth);
        sum += k;
        if (depth == 0 && sum > e->cap && !e->where) e->where = n;
        /* an entity reference's children are its declaration: not entered */
        if (n->children && (n->type == XML_ELEMENT_NODE || n->type == XML_DOCUMENT_NODE)) {
            n = n->children;
            continue;
        }
        while (n && n != stop && !n->next) n = n->parent;
        n = n && n != stop ? n->next : NULL;
    }
    return sum;
}

/* External entities are never loaded, even when substituting: a refusing
 * loader for kinegraph's own parsers, libxml2's for everyone else's. */
static xmlExternalEntityLoader default_loader;
static char kg_parser_mark;

static xmlParserInputPtr refuse_external(const char *url, const char *id, xmlParserCtxtPtr ctxt) {
    if (ctxt && ctxt->_private == &kg_parser_mark) return NULL;
    return default_loader(url, id, ctxt);
}

static void install_loader(void) {
    default_loader = xmlGetExternalEntityLoader();
    xmlSetExternalEntityLoader(refuse_external);
}

static xmlDocPtr parse(const char *copy, size_t len, const char *file, int opts, err_sink *sink) {
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return NULL;
    ctxt->_private = &kg_parser_mark;
    sink->ctxt = ctxt;
    xmlSetStructuredErrorFunc(sink, on_error);
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, copy, (int)len, file, NULL, opts);
    xmlSetStructuredErrorFunc(NULL, NULL);
    sink->ctxt = NULL;
    xmlFreeParserCtxt(ctxt);
    return doc;
}

/* ---- substitution ---- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
    int oom; /* memory ran out: what was put since is lost, the substitution fails */
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap;
        while (b->n + n + 1 > cap) cap = cap ? 2 * cap : 256;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            b->oom = 1;
            return;
        }
        b->s = grown, b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static int expand_list(xmlDocPtr doc, xmlNodePtr first, sbuf *b, int depth);

/* Appends the text of node n, entities expanded; -1 when it holds an element
 * (an entity with markup: copied as nodes instead). External entities are
 * never loaded and add nothing. Bounded: the document passed the cap. */
static int expand_node(xmlDocPtr doc, xmlNodePtr n, sbuf *b, int depth) {
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
        if (n->content) sb_put(b, (const char *)n->content, strlen((const char *)n->content));
        return 0;
    }
    if (n->type == XML_COMMENT_NODE || n->type == XML_PI_NODE) return 0;
    if (n->type != XML_ENTITY_REF_NODE) return -1;
    xmlEntityPtr ent = xmlGetDocEntity(doc, n->name);
    if (!ent || depth > 64) return 0;
    if (ent->etype == XML_INTERNAL_GENERAL_ENTITY && ent->children) return expand_list(doc, ent->children, b, depth + 1);
    if ((ent->etype == XML_INTERNAL_GENERAL_ENTITY || ent->etype == XML_INTERNAL_PREDEFINED_ENTITY) && ent->content)
        sb_put(b, (const char *)ent->content, strlen((const char *)ent->content));
    return 0;
}

static int expand_list(xmlDocPtr doc, xmlNodePtr first, sbuf *b, int depth) {
    for (xmlNodePtr n = first; n; n = n->next)
        if (expand_node(doc, n, b, depth) != 0) return -1;
    return 0;
}

static int has_refs(xmlNodePtr first) {
    for (xmlNodePtr n = first; n; n = n->next)
        if (n->type == XML_ENTITY_REF_NODE) return 1;
    return 0;
}

/* An attribute value made of text and references becomes one text node; 0, or
 * -1 when memory runs out (the attribute as it was). */
static int substitute_attr(xmlDocPtr doc, xmlAttrPtr a) {
    if (!has_refs(a->children)) return 0;
    sbuf b = {0};
    expand_list(doc, a->children, &b, 0); /* attribute entities hold no markup */
    xmlNodePtr t = b.oom ? NULL : xmlNewDocTextLen(doc, BAD_CAST(b.s ? b.s : ""), (int)b.n);
    free(b.s);
    if (!t) return -1;
    xmlFreeNodeList(a->children);
    a->children = a->last = t;
    t->parent = (xmlNodePtr)a;
    return 0;
}

/* Puts the list `first` where `at` is (linked by hand: libxml2's insertion
 * merges adjacent text by reallocation, the quadratic case again). */
static void put_instead(xmlNodePtr at, xmlNodePtr first) {
    xmlNodePtr last = first;
    for (xmlNodePtr n = first; n; n = n->next) {
        n->parent = at->parent;
        last = n;
    }
    first->prev = at->prev;
    last->next = at->next;
    if (at->prev) at->prev->next = first;
    else at->parent->children = first;
    if (at->next) at->next->prev = last;
    else at->parent->last = last;
    at->prev = at->next = NULL;
    at->parent = NULL;
    xmlFreeNode(at);
}

/* The element's attributes and the references among its children; what an
 * entity with markup puts in is walked later like any other element. 0, or -1
 * when memory runs out (the document is then half substituted: dropped). */
static int substitute_element(xmlDocPtr doc, xmlNodePtr el) {
    for (xmlAttrPtr a = el->properties; a; a = a->next)
        if (substitute_attr(doc, a) != 0) return -1;
    for (xmlNodePtr c = el->children, next; c; c = next) {
        next = c->next;
        if (c->type != XML_ENTITY_REF_NODE) continue;
        xmlEntityPtr ent = xmlGetDocEntity(doc, c->name);
        sbuf b = {0};
        xmlNodePtr with = NULL;
        int text = expand_node(doc, c, &b, 0) == 0, wanted = 0;
        if (text && b.n && !b.oom) with = xmlNewDocTextLen(doc, BAD_CAST b.s, (int)b.n), wanted = 1;
        else if (!text && ent && ent->children) with = xmlDocCopyNodeList(doc, ent->children), wanted = 1;
        free(b.s);
        if (b.oom || (wanted && !with)) return -1;
        if (with) {
            put_instead(c, with);
        } else { /* nothing in its place (an empty or external entity) */
            xmlUnlinkNode(c);
            xmlFreeNode(c);
        }
    }
    return 0;
}

/* Every reference in the document replaced by its text (or its nodes); 0, or
 * -1 when memory runs out. */
static int substitute_entities(xmlDocPtr doc) {
    xmlNodePtr root = xmlDocGetRootElement(doc), stop = (xmlNodePtr)doc;
    for (xmlNodePtr n = root; n;) {
        if (n->type == XML_ELEMENT_NODE && substitute_element(doc, n) != 0) return -1;
        if (n->children && n->type == XML_ELEMENT_NODE) {
            n = n->children;
            continue;
        }
        while (n && n != stop && !n->next) n = n->parent;
        n = n && n != stop ? n->next : NULL;
    }
    return 0;
}

/* 0 when the document has no entity reference, 1 when it has (and can be
 * substituted), -1 after an error (too much text). */
static int check_entities(xmlDocPtr doc, const char *file, kg_diags *d) {
    if (!doc->intSubset) return 0; /* no DTD, no entity */
    expansion e = {.doc = doc, .cap = KG_LIMIT(KG_LIMIT_XML_ENTITY_EXPANSION)};
    xmlNodePtr root = xmlDocGetRootElement(doc);
    list_size(&e, root, (xmlNodePtr)doc, 0);
    if (e.where) {
        kg_diag_add(d, KG_ERROR, "xml.entity_expansion", file, kg_xml_line(e.where),
                    e.where->type == XML_ELEMENT_NODE ? (const char *)e.where->name : NULL,
                    "entity references expand to more than %llu characters (KG_LIMIT_XML_ENTITY_EXPANSION); "
                    "the document is refused", e.cap);
        return -1;
    }
    return e.refs > 0;
}

int kg_xml_parse(kg_xml *x, const char *buf, size_t len, const char *file, kg_diags *d) {
    memset(x, 0, sizeof *x);
    x->file = file;
    x->diags = d;
    if (len > (size_t)INT32_MAX) {
        kg_diag_add(d, KG_ERROR, "io.too_large", file, 0, NULL, "file too large for the XML parser");
        return -1;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        kg_diag_add(d, KG_ERROR, "io.memory", file, 0, NULL, "out of memory before parsing");
        return -1;
    }
    memcpy(copy, buf, len);
    copy[len] = 0;
    fix_declaration(copy, len, file, d);
    err_sink sink = {file, d, 0, NULL};
    static pthread_once_t once = PTHREAD_ONCE_INIT; /* `check` parses on several threads */
    pthread_once(&once, install_loader);
    /* libxml2 2.9 keeps its depth limit in a global (256, or none with
     * XML_PARSE_HUGE, which also lifts its entity amplification checks); its
     * parser and xmlFreeDoc do not recurse, so a deep document costs memory
     * only. Every parse sets the same value. */
    xmlParserMaxDepth = KG_LIMIT_XML_DEPTH;
    /* No network, no external entities, no DTD loading; line numbers past 65535. */
    int opts = XML_PARSE_NONET | XML_PARSE_BIG_LINES;
    xmlDocPtr doc = parse(copy, len, file, opts, &sink);
    int ents = doc && !sink.fatal && xmlDocGetRootElement(doc) ? check_entities(doc, file, d) : 0;
    if (ents < 0) {
        xmlFreeDoc(doc);
        doc = NULL;
    } else if (ents > 0 && substitute_entities(doc) != 0) {
        xmlFreeDoc(doc);
        free(copy);
        kg_diag_add(d, KG_ERROR, "io.memory", file, 0, NULL, "out of memory substituting entities");
        return -1;
    }
    free(copy);
    if (!doc || sink.fatal) {
        if (doc) xmlFreeDoc(doc);
        if (!sink.fatal && ents >= 0)
            kg_diag_add(d, KG_ERROR, "xml.malformed", file, 0, NULL, "not a readable XML document");
        return -1;
    }
    if (!xmlDocGetRootElement(doc)) {
        xmlFreeDoc(doc);
        kg_diag_add(d, KG_ERROR, "xml.malformed", file, 0, NULL, "the XML document has no root element");
        return -1;
    }
    x->doc = doc;
    return 0;
}

void kg_xml_close(kg_xml *x) {
    if (x->doc) xmlFreeDoc(x->doc);
    for (int i = 0; i < x->nowned; i++) free(x->owned[i]);
    free(x->owned);
    memset(x, 0, sizeof *x);
}

void *kg_xml_out_of_memory(kg_xml *x) {
    if (!x->oom) x->oom = 1, x->oom_at = x->diags ? x->diags->count : 0;
    return NULL;
}

xmlNodePtr kg_xml_first(xmlNodePtr n) {
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

xmlNodePtr kg_xml_next(xmlNodePtr c) {
    for (c = c ? c->next : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

int kg_xml_is(xmlNodePtr n, const char *name) {
    return n && n->type == XML_ELEMENT_NODE && (!n->ns || !n->ns->prefix) &&
           strcmp((const char *)n->name, name) == 0;
}

xmlNodePtr kg_xml_child(xmlNodePtr n, const char *name) {
    for (xmlNodePtr c = kg_xml_first(n); c; c = kg_xml_next(c))
        if (kg_xml_is(c, name)) return c;
    return NULL;
}

const char *kg_xml_attr(kg_xml *x, xmlNodePtr n, const char *name) {
    xmlAttrPtr a = xmlHasProp(n, (const xmlChar *)name);
    if (!a) return NULL;
    if (!a->children) return "";
    if (a->children->type == XML_TEXT_NODE && !a->children->next)
        return (const char *)a->children->content;
    /* values made of several nodes (entity references): build and keep a copy */
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    char *s = kg_strdup(v ? (const char *)v : "");
    xmlFree(v);
    if (s && x->nowned == x->capowned) {
        int cap = x->capowned ? 2 * x->capowned : 8;
        char **owned = realloc(x->owned, (size_t)cap * sizeof *owned);
        if (owned) x->owned = owned, x->capowned = cap;
        else free(s), s = NULL;
    }
    if (!s) return kg_xml_out_of_memory(x);
    x->owned[x->nowned++] = s;
    return s;
}

int kg_parse_doubles(const char *s, double *out, int count) {
    const char *p = s;
    for (int i = 0; i < count; i++) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) return -1;
        double v;
        const char *end = kg_parse_number(p, &v);
        if (!end || !isfinite(v)) return -1;
        if (*end && !isspace((unsigned char)*end)) return -1;
        out[i] = v;
        p = end;
    }
    while (isspace((unsigned char)*p)) p++;
    return *p ? -1 : 0;
}

int kg_xml_doubles(kg_xml *x, xmlNodePtr n, const char *name, double *out, int count) {
    const char *v = kg_xml_attr(x, n, name);
    if (!v) return 0;
    double tmp[16];
    if (count > 16 || kg_parse_doubles(v, tmp, count) != 0) {
        char shown[80];
        snprintf(shown, sizeof shown, "%s", v);
        kg_diag_add(x->diags, KG_ERROR, "xml.bad_number", x->file, kg_xml_line(n), (const char *)n->name,
                    "<%s %s=\"%s%s\">: expected %d finite number%s", (const char *)n->name, name, shown,
                    strlen(v) >= sizeof shown ? "..." : "", count, count == 1 ? "" : "s");
        return -1;
    }
    memcpy(out, tmp, (size_t)count * sizeof *out);
    return 1;
}

/* The default namespace is left to the document the text goes back into (a
 * COLLADA extra into COLLADA): elements lose it, and its declaration goes. */
static void drop_default_ns(xmlNodePtr n, int depth, int pass) {
    for (; n && depth < 256; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (pass == 0 && n->ns && !n->ns->prefix) n->ns = NULL; /* first every use... */
        for (xmlNsPtr *d = &n->nsDef; pass == 1 && *d;) {        /* ...then the declarations */
            if (!(*d)->prefix) {
                xmlNsPtr dead = *d;
                *d = dead->next;
                dead->next = NULL;
                xmlFreeNs(dead);
            } else {
                d = &(*d)->next;
            }
        }
        drop_default_ns(n->children, depth + 1, pass);
    }
}

char *kg_xml_dump(kg_xml *x, xmlNodePtr n) {
    /* A copy standing alone, so that namespaces declared further up (URDF's
     * xmlns:controller on <robot>) are declared on the element itself. */
    xmlDocPtr tmp = xmlNewDoc(BAD_CAST "1.0");
    xmlNodePtr copy = tmp ? xmlDocCopyNode(n, tmp, 1) : NULL;
    xmlBufferPtr b = xmlBufferCreate();
    if (copy) {
        xmlDocSetRootElement(tmp, copy);
        xmlReconciliateNs(tmp, copy);
        drop_default_ns(copy, 0, 0);
        drop_default_ns(copy, 0, 1);
        xmlNodeDump(b, tmp, copy, 0, 0);
    } else {
        xmlNodeDump(b, x->doc, n, 0, 0);
    }
    const char *content = b ? (const char *)xmlBufferContent(b) : NULL;
    char *s = content ? kg_strdup(content) : NULL;
    xmlBufferFree(b);
    xmlFreeDoc(tmp);
    return s ? s : kg_xml_out_of_memory(x);
}

void kg_xml_escape(FILE *f, const char *s) {
    if (!s) return;
    /* text that is not UTF-8 (a file name's bytes) has its non-ASCII bytes as '?',
     * as kg_json_str does: XML must be UTF-8 */
    int utf8 = kg_utf8_valid(s, strlen(s));
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        /* as references, which an attribute keeps (a parser turns them to spaces raw) */
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        case '\t': fputs("&#9;", f); break;
        default:
            /* XML 1.0 has no place for other control characters, U+FFFE or U+FFFF */
            if (*p < 0x20 || (*p >= 0x80 && !utf8)) fputc('?', f);
            else if (*p == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) fputc('?', f), p += 2;
            else fputc(*p, f);
        }
    }
}
