#include "formats/units.h"

const char *kg_guess_unit(double height, double *to_m) {
    /* An adult is 1.4 to 2.0 m tall; each range below is roughly 0.8 to 2.5 m in
     * that unit, and they do not overlap. "cmu" is CMU's ASF length unit (1/0.45
     * inch), kept by the cgspeed BVH conversions of the CMU database. */
    static const struct {
        const char *name;
        double lo, hi, to_m;
    } units[] = {{"m", 0.8, 2.5, 1},
                 {"cmu", 14, 40, 0.0254 / 0.45},
                 {"inch", 40, 100, 0.0254},
                 {"cm", 100, 250, 0.01},
                 {"mm", 800, 2500, 0.001}};
    for (unsigned i = 0; i < sizeof units / sizeof *units; i++)
        if (height >= units[i].lo && height < units[i].hi) {
            if (to_m) *to_m = units[i].to_m;
            return units[i].name;
        }
    if (to_m) *to_m = 0;
    return "unknown";
}
