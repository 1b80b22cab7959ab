#include "cli/retarget_json.h"

#include <math.h>
#include <stdio.h>

#include "cli/common.h"

/* A part's point from {"link": ..., "point": [x, y, z]}; 0, -1 when malformed. */
static int read_point(json_t *v, double p[3]) {
    json_t *pt = json_object_get(v, "point");
    p[0] = p[1] = p[2] = 0;
    if (!pt) return 0;
    if (!json_is_array(pt) || json_array_size(pt) != 3) return -1;
    for (int a = 0; a < 3; a++) {
        if (!json_is_number(json_array_get(pt, (size_t)a))) return -1;
        p[a] = json_number_value(json_array_get(pt, (size_t)a));
    }
    return 0;
}

int kg_map_read(json_t *side, const char *which, const kg_model *m, kg_body_map *map, const char *path) {
    for (int k = 0; k < KG_NPART; k++) {
        map->link[k] = -1, map->how[k] = NULL, map->why[k] = NULL;
        for (int a = 0; a < 3; a++) map->point[k][a] = 0;
    }
    if (!side) return 0;
    if (!json_is_object(side)) {
        fprintf(stderr, "%s: error: \"%s\" must be an object of part: link name\n", path, which);
        return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach(side, key, v) {
        int part = kg_part_parse(key);
        if (part < 0) {
            fprintf(stderr, "%s: error: \"%s\": unknown part '%s'\n", path, which, key);
            return -1;
        }
        json_t *name = json_is_object(v) ? json_object_get(v, "link") : v;
        int l = json_is_string(name) ? kg_model_link(m, json_string_value(name)) : -1;
        if (l < 0) {
            fprintf(stderr, "%s: error: \"%s\".\"%s\": no link '%s' in %s\n", path, which, key,
                    json_is_string(name) ? json_string_value(name) : "(not a string)",
                    m->source ? m->source : "the model");
            return -1;
        }
        if (json_is_object(v) && read_point(v, map->point[part]) != 0) {
            fprintf(stderr, "%s: error: \"%s\".\"%s\": \"point\" must be [x, y, z] (m)\n", path, which, key);
            return -1;
        }
        map->link[part] = l, map->how[part] = "map";
    }
    return 0;
}

json_t *kg_map_json(const kg_model *m, const kg_body_map *map) {
    json_t *o = json_object();
    for (int k = 0; k < KG_NPART; k++) {
        int l = map->link[k];
        if (l < 0) continue;
        const double *p = map->point[k];
        if (p[0] == 0 && p[1] == 0 && p[2] == 0) {
            json_object_set_new(o, kg_part_name(k), kg_json_str(m->link[l].name));
            continue;
        }
        json_t *e = json_object(), *pt = json_array();
        for (int a = 0; a < 3; a++) json_array_append_new(pt, kg_json_num(p[a]));
        json_object_set_new(e, "link", kg_json_str(m->link[l].name));
        json_object_set_new(e, "point", pt);
        json_object_set_new(o, kg_part_name(k), e);
    }
    return o;
}

json_t *kg_map_why_json(const kg_body_map *map) {
    json_t *o = json_object();
    for (int k = 0; k < KG_NPART; k++) {
        if (map->link[k] < 0) continue;
        char buf[512];
        snprintf(buf, sizeof buf, "%s: %s", map->how[k] ? map->how[k] : "?", map->why[k] ? map->why[k] : "");
        json_object_set_new(o, kg_part_name(k), kg_json_str(buf));
    }
    return o;
}

static json_t *num_or_null(double v) { return isfinite(v) ? kg_json_num(v) : json_null(); }

/* The report's JSON (README, "Retargeting"). Fields of the earlier solver whose
 * steps no longer exist (narrowed_stances, ..., self_collision_*_frames of the
 * repairs) stay, at 0: the contract keeps names. */
json_t *kg_retarget_report_json(const kg_retarget_report *r, const char *clip, const char *robot) {
    json_t *o = json_object();
    int cm = r->self_collision_frames >= 0;
    json_object_set_new(o, "clip", kg_json_str(clip));
    json_object_set_new(o, "robot", kg_json_str(robot));
    json_object_set_new(o, "source_family", kg_json_str(r->source_family));
    json_object_set_new(o, "frames", json_integer(r->frames));
    json_object_set_new(o, "frame_time", kg_json_num(r->frame_time));
    json_object_set_new(o, "leg_scale", kg_json_num(r->leg_scale));
    json_object_set_new(o, "arm_scale", kg_json_num(r->arm_scale));
    json_object_set_new(o, "root_speed_max", kg_json_num(r->root_speed_max));
    json_object_set_new(o, "root_fast_frames", json_integer(r->root_fast_frames));
    json_object_set_new(o, "source_root_speed_max", kg_json_num(r->source_root_speed_max));
    json_object_set_new(o, "source_root_fast_frames", json_integer(r->source_root_fast_frames));
    json_object_set_new(o, "keypoint_error_mean_mm", kg_json_num(r->keypoint_mean_mm));
    json_object_set_new(o, "keypoint_error_max_mm", kg_json_num(r->keypoint_max_mm));
    json_object_set_new(o, "pose_error_mean_deg", kg_json_num(r->pose_mean_deg));
    json_object_set_new(o, "pose_error_p95_deg", kg_json_num(r->pose_p95_deg));
    json_t *seg = json_object();
    for (int k = 0; k < KG_NSEGMENT; k++)
        json_object_set_new(seg, kg_retarget_segment_name(k), num_or_null(r->pose_segment_mean_deg[k]));
    json_object_set_new(o, "pose_error_segments_mean_deg", seg);
    json_object_set_new(o, "pose_off_percent", kg_json_num(r->pose_off_percent));
    json_object_set_new(o, "pose_off_at_limit_percent", kg_json_num(r->pose_held_percent));
    json_t *held = json_object();
    for (int k = 0; k < KG_NSEGMENT; k++)
        json_object_set_new(held, kg_retarget_segment_name(k), num_or_null(r->pose_segment_held_percent[k]));
    json_object_set_new(o, "pose_off_at_limit_segments_percent", held);
    json_object_set_new(o, "pose_off_at_speed_limit_percent", kg_json_num(r->pose_slow_percent));
    json_t *slow = json_object();
    for (int k = 0; k < KG_NSEGMENT; k++)
        json_object_set_new(slow, kg_retarget_segment_name(k), num_or_null(r->pose_segment_slow_percent[k]));
    json_object_set_new(o, "pose_off_at_speed_limit_segments_percent", slow);
    json_object_set_new(o, "contact_phases", json_integer(r->contact_phases));
    json_object_set_new(o, "narrowed_stances", json_integer(0));
    json_object_set_new(o, "widened_stances", json_integer(0));
    json_object_set_new(o, "delayed_landing_frames", json_integer(0));
    json_object_set_new(o, "contact_frames", json_integer(r->contact_frames));
    json_object_set_new(o, "double_support_frames", json_integer(r->double_support_frames));
    json_object_set_new(o, "seated_frames", json_integer(r->seated_frames));
    json_object_set_new(o, "hips_drop_max_mm", kg_json_num(r->hips_drop_max_mm));
    json_object_set_new(o, "hips_low_frames", json_integer(r->hips_low_frames));
    json_object_set_new(o, "foot_slip_max_mm", kg_json_num(r->slip_max_mm));
    json_object_set_new(o, "foot_slip_mean_mm", kg_json_num(r->slip_mean_mm));
    json_object_set_new(o, "stance_runs", json_integer(r->stance_runs));
    json_object_set_new(o, "penetration_max_mm", kg_json_num(r->penetration_max_mm));
    json_object_set_new(o, "float_max_mm", kg_json_num(r->float_max_mm));
    json_object_set_new(o, "hover_percent", kg_json_num(r->hover_percent));
    json_object_set_new(o, "limit_violations", json_integer(r->limit_violations));
    json_object_set_new(o, "velocity_violations", json_integer(r->velocity_violations));
    json_object_set_new(o, "self_collision_frames", cm ? json_integer(r->self_collision_frames) : json_null());
    json_object_set_new(o, "self_collision_deep_frames", cm ? json_integer(r->self_collision_deep_frames) : json_null());
    json_object_set_new(o, "self_collision_depth_max_mm", cm ? kg_json_num(r->self_collision_depth_max_mm) : json_null());
    static const char *const repairs[] = {"self_collision_pushed_frames", "self_collision_retreat_frames",
                                          "self_collision_fallback_frames", "self_collision_turned_frames",
                                          "self_collision_whole_body_frames"};
    for (size_t k = 0; k < sizeof repairs / sizeof *repairs; k++)
        json_object_set_new(o, repairs[k], cm ? json_integer(0) : json_null());
    json_t *sf = json_object(), *sm = json_object();
    for (int k = 0; k < KG_NSLACK; k++) {
        json_object_set_new(sf, kg_slack_kind_name(k), json_integer(r->slack_frames[k]));
        json_object_set_new(sm, kg_slack_kind_name(k), kg_json_num(r->slack_max[k]));
    }
    json_object_set_new(o, "slack_frames", sf);
    json_object_set_new(o, "slack_max", sm);
    json_object_set_new(o, "qp_failures", json_integer(r->qp_failures));
    json_object_set_new(o, "iterations_mean", kg_json_num(r->iterations_mean));
    json_object_set_new(o, "capped_frames", json_integer(r->capped_frames));
    json_object_set_new(o, "collision_capped_frames", json_integer(r->collision_capped_frames));
    json_object_set_new(o, "source_cuts", json_integer(r->source_cuts));
    json_object_set_new(o, "catch_up_frames", json_integer(r->catch_up_frames));
    json_object_set_new(o, "stuck_limbs", json_integer(r->stuck_limbs));
    json_object_set_new(o, "stuck_catch_ups", json_integer(r->stuck_catch_ups));
    json_object_set_new(o, "com_margin_min_mm", kg_json_num(r->com_margin_min_mm));
    json_object_set_new(o, "com_outside_percent", kg_json_num(r->com_outside_percent));
    json_object_set_new(o, "com_outside_double_support_percent", kg_json_num(r->com_outside_double_percent));
    json_object_set_new(o, "zmp_margin_min_mm", kg_json_num(r->zmp_margin_min_mm));
    json_object_set_new(o, "zmp_outside_percent", kg_json_num(r->zmp_outside_percent));
    json_object_set_new(o, "zmp_outside_reference_outside_percent", kg_json_num(r->zmp_outside_reference_outside_percent));
    json_object_set_new(o, "zmp_outside_foreseen_percent", kg_json_num(r->zmp_outside_foreseen_percent));
    json_object_set_new(o, "balance_uncaught_frames", json_integer(r->balance_uncaught_frames));
    json_object_set_new(o, "seconds", kg_json_num(r->seconds));
    json_object_set_new(o, "setup_seconds", kg_json_num(r->setup_seconds));
    json_object_set_new(o, "robot_seconds", kg_json_num(r->robot_seconds));
    json_object_set_new(o, "frames_per_second", kg_json_num(r->seconds > 0 ? r->frames / r->seconds : 0));
    double solve = r->seconds - r->setup_seconds;
    json_object_set_new(o, "frames_per_second_without_setup", kg_json_num(solve > 0 ? r->frames / solve : 0));
    json_object_set_new(o, "solve_cpu_seconds", kg_json_num(r->solve_cpu_seconds));
    json_object_set_new(o, "frames_per_cpu_second_without_setup",
                        kg_json_num(r->solve_cpu_seconds > 0 ? r->frames / r->solve_cpu_seconds : 0));
    return o;
}


json_t *kg_retarget_timeline_json(const unsigned *flags, int n) {
    json_t *o = json_object();
    for (int k = 0; k < KG_NFRAME_FLAG; k++) {
        json_t *runs = json_array();
        for (int f = 0; f < n; f++) {
            if (!(flags[f] & 1u << k)) continue;
            int last = f;
            while (last + 1 < n && flags[last + 1] & 1u << k) last++;
            json_array_append_new(runs, json_pack("[i, i]", f, last));
            f = last;
        }
        json_object_set_new(o, kg_retarget_frame_flag_name(k), runs);
    }
    return o;
}
