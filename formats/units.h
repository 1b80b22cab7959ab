/* Units and up-axis policy.
 *
 * Inside kinegraph everything is SI. Formats with declared units are converted
 * where they are read (COLLADA <unit>, degrees in COLLADA limits and BVH
 * rotations). BVH declares no length unit: lengths keep the file's unit unless
 * the user gives a scale, and kg_guess_unit says what the unit probably is. */
#ifndef KG_UNITS_H
#define KG_UNITS_H

/* The likely length unit of a human skeleton (or similar-sized figure) that is
 * `height` tall: "m" (0.8-2.5), "cmu" (CMU's ASF unit, 1/0.45 inch: 14-40),
 * "inch" (40-100), "cm" (100-250), "mm" (800-2500), else "unknown". Sets *to_m
 * to the metres per unit (0 if unknown). */
const char *kg_guess_unit(double height, double *to_m);

#endif
