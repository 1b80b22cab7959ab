/* Decimal number parsing, correctly rounded (the same double as strtod in the C
 * locale), fast for the numbers model and motion files are made of: up to 15
 * significant digits with a small exponent take Clinger's exact fast path
 * (one multiplication or division by an exact power of ten); everything else
 * goes to strtod. */
#ifndef KG_NUMBER_H
#define KG_NUMBER_H

/* Parses a number at s (no leading space). Returns the character after it, or
 * NULL when there is no number at s. */
const char *kg_parse_number(const char *s, double *out);

/* Writes v in the shortest %g form that reads back as the same double (at most
 * 17 significant digits; "nan"/"inf" for non-finite values). buf needs 32 bytes.
 * Returns buf. */
char *kg_format_number(char *buf, double v);

#endif
