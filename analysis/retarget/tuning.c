/* The tuning: every number the retargeting uses, its default, and the table
 * that reads and sets them by name (the command's --tune). What each means is
 * said where the struct is declared (retarget.h); nothing here depends on a
 * robot or a clip. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/retarget.h"

void kg_retarget_defaults(kg_retarget_options *o) {
    memset(o, 0, sizeof *o);
    o->balance = 1;
    o->avoid_self_collision = 1;
    o->prepare_threads = 1;
    kg_retarget_tuning *t = &o->tune;
    t->floor_window = 2, t->floor_percentile = 1;
    t->contact_height = 0.04, t->contact_height_off = 0.06;
    t->contact_speed = 0.5, t->contact_speed_off = 0.8, t->slide_speed = 0.1, t->slide_length = 0, t->slide_clearance = 0.015;
    t->min_contact_time = 0.05, t->pivot_turn = 0.35, t->pivot_catch_up = 0.3, t->speed_window = 0.02;
    t->heading_tilt = 1.05;
    t->zmp_margin = 0.09, t->zmp_step = 0.04, t->zmp_replan = 0.005;
    t->preview_time = 1, t->preview_r = 1e-8, t->zmp_inside = 0.005;
    t->iterations = 8, t->first_iterations = 60, t->step_tolerance = 3e-3, t->trust_shrink = 0.5, t->predict = 1;
    t->trust_angle = 0.1, t->trust_length = 0.04;
    t->w_segment = 1, t->w_body = 1, t->w_head = 0.3;
    t->w_swing = 10, t->w_swing_turn = 1, t->w_landing = 100, t->w_pivot = 100;
    t->w_hand = 0.3, t->w_elbow = 0.1, t->w_com = 1000, t->w_height = 1, t->height_hold = 0.3, t->seat_height = 0.25;
    t->w_previous = 0.3, t->w_neutral = 0.05, t->w_damping = 1e-6;
    t->w_slack[KG_SLACK_STANCE] = 1e8, t->w_slack[KG_SLACK_GROUND] = 1e6, t->w_slack[KG_SLACK_COLLISION] = 1e6;
    t->w_slack[KG_SLACK_BALANCE] = 1e5, t->w_slack[KG_SLACK_LOOP] = 1e6;
    t->slack_least = 1e-4;
    t->joint_speed_default = 8, t->frame_rate_max = 2000, t->position_max = 1e6, t->root_speed = 4, t->root_turn_speed = 12, t->limit_margin = 1e-6;
    t->sole_watch = 0.05, t->scuff_height = 0.006, t->scuff_release = 0.012, t->scuff_time = 0.002, t->sole_face = 0.02, t->sole_level = 0.05, t->sole_lean = 0.1,
    t->roll_depth = 0.001, t->sole_tilt = 0.1, t->w_sole_tilt = 100;
    t->default_sole_back = 0.08, t->default_sole_front = 0.12, t->default_sole_half_width = 0.05;
    t->collision_safe = 0.005, t->collision_influence = 0.06, t->collision_gain = 0.5;
    t->collision_lookahead = 0.05, t->collision_tolerance = 1e-4, t->collision_hull_width = 0.002;
    t->collision_remeasure = 0.03, t->collision_replane = 0.1, t->collision_rows = 64;
    t->shift_fade = 1, t->landing_time = 0.1, t->sole_gap = 0.01;
    t->pin_height = 0.01, t->pin_speed = 0.45, t->pin_height_max = 0.02;
    t->leg_reference = 0.6;
    t->cut_angle = 1.2, t->w_cut = 1, t->cut_tolerance = 0.05, t->cut_time = 1;
    t->stuck_angle = 0.5, t->stuck_time = 0.5, t->stuck_gain = 0.5;
}

#define D(f, u) {#f, offsetof(kg_retarget_tuning, f), 0, u}
#define I(f, u) {#f, offsetof(kg_retarget_tuning, f), 1, u}
#define S(k, n) {"w_slack_" n, offsetof(kg_retarget_tuning, w_slack) + (k) * sizeof(double), 0, "1"}
static const kg_tuning_field fields[] = {
    D(floor_window, "s"), D(floor_percentile, "%"), D(contact_height, "m"), D(contact_height_off, "m"),
    D(contact_speed, "m/s"), D(contact_speed_off, "m/s"), D(slide_speed, "m/s"), D(slide_length, "m"),
    D(slide_clearance, "m"), D(leg_reference, "m"), D(min_contact_time, "s"), D(speed_window, "s"),
    D(pivot_turn, "rad"), D(pivot_catch_up, "s"), D(heading_tilt, "rad"), D(cut_angle, "rad"), D(w_cut, "1"), D(cut_tolerance, "rad, m"),
    D(cut_time, "s"), D(stuck_angle, "rad"), D(stuck_time, "s"), D(stuck_gain, "1"), D(zmp_margin, "m"), D(zmp_step, "s"),
    D(zmp_replan, "m"), D(preview_time, "s"), D(preview_r, "1"), D(zmp_inside, "m"), I(iterations, "1"),
    I(first_iterations, "1"), D(step_tolerance, "rad, m"), D(trust_shrink, "1"), D(predict, "1"),
    D(trust_angle, "rad"), D(trust_length, "m"), D(w_segment, "1"), D(w_body, "1"), D(w_head, "1"), D(w_swing, "1"),
    D(w_swing_turn, "1"), D(w_landing, "1"), D(w_pivot, "1"), D(w_hand, "1"), D(w_elbow, "1"), D(w_com, "1"),
    D(w_height, "1"), D(seat_height, "1"), D(height_hold, "s"), D(w_previous, "1"), D(w_neutral, "1"),
    D(w_damping, "1"), D(slack_least, "m, rad"), S(KG_SLACK_STANCE, "stance"), S(KG_SLACK_GROUND, "ground"),
    S(KG_SLACK_COLLISION, "collision"), S(KG_SLACK_BALANCE, "balance"), S(KG_SLACK_LOOP, "loop"),
    D(joint_speed_default, "rad/s, m/s"), D(position_max, "m"), D(frame_rate_max, "frames/s"), D(root_speed, "m/s"),
    D(root_turn_speed, "rad/s"), D(limit_margin, "rad, m"), D(sole_watch, "m"), D(sole_face, "m"), D(sole_level, "rad"), D(sole_lean, "1"),
    D(roll_depth, "m"), D(sole_tilt, "rad"), D(w_sole_tilt, "1"), D(default_sole_back, "m"), D(default_sole_front, "m"), D(default_sole_half_width, "m"),
    D(landing_time, "s"), D(scuff_height, "m"), D(scuff_release, "m"), D(scuff_time, "s"), D(pin_height, "m"),
    D(pin_speed, "m/s"), D(pin_height_max, "m"), D(shift_fade, "s"), D(sole_gap, "m"), D(collision_safe, "m"),
    D(collision_influence, "m"), D(collision_gain, "1"), D(collision_lookahead, "m"), D(collision_remeasure, "m"),
    D(collision_replane, "m"), D(collision_hull_width, "m"), I(collision_rows, "1"), D(collision_tolerance, "m"),
};
#undef D
#undef I
#undef S

const kg_tuning_field *kg_retarget_tuning_fields(int *n) {
    *n = (int)(sizeof fields / sizeof *fields);
    return fields;
}

double kg_retarget_tuning_get(const kg_retarget_tuning *t, const kg_tuning_field *f) {
    const char *p = (const char *)t + f->offset;
    return f->is_int ? (double)*(const int *)p : *(const double *)p;
}

int kg_retarget_tuning_set(kg_retarget_tuning *t, const char *name, double value) {
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
        if (strcmp(fields[k].name, name)) continue;
        /* every number is a length, time, speed, weight or count: none is negative, and a count
         * is whole and fits an int (a larger double converted to int is undefined) */
        if (!isfinite(value) || value < 0 || (fields[k].is_int && (value != floor(value) || value > INT_MAX)))
            return -2;
        char *p = (char *)t + fields[k].offset;
        if (fields[k].is_int) *(int *)p = (int)value;
        else *(double *)p = value;
        return 0;
    }
    return -1;
}
