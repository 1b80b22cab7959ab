/* MathML content markup, evaluated: the expressions of COLLADA <formula>s.
 * Supported: <apply> with plus, minus (unary and binary), times, divide, power,
 * root (with <degree>), abs, exp, ln, sin, cos, tan, arcsin, arccos, arctan; <cn> (real,
 * integer, e-notation), <csymbol> and <ci> variables, <pi/>, <exponentiale/>.
 * Elements are matched by local name (a "math:" prefix is fine). Anything else
 * is reported, never skipped. */
#ifndef KG_MATHML_H
#define KG_MATHML_H

#include <libxml/tree.h>

/* Gives a variable's value; returns 0, or -1 when the name is unknown. */
typedef int (*kg_mathml_var)(void *ctx, const char *name, double *value);

/* Evaluates the expression at n (a <math> element or an expression in it).
 * Returns 0 and *out; or -1 with *why (static text) and *where (the offending
 * element) set; -2 when memory runs out. */
int kg_mathml_eval(xmlNodePtr n, kg_mathml_var var, void *ctx, double *out, const char **why, xmlNodePtr *where);

#endif
