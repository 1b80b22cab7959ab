/* How to fix what a diagnostic reports: one hint per code, for people reading
 * `kinegraph check` reports. Codes not listed fall back to their family (the
 * part before the dot). Keep the table sorted by code. */
#include <string.h>

#include "core/diag.h"

typedef struct hint {
    const char *code, *text;
} hint;

static const hint hints[] = {
    {"bvh.bad_channels", "write CHANNELS n followed by n of Xposition Yposition Zposition Xrotation Yrotation Zrotation"},
    {"bvh.bad_frame_time", "give 'Frame Time:' a positive number of seconds (1/120 = 0.0083333)"},
    {"bvh.bad_frames", "give 'Frames:' a whole number, the count of motion lines"},
    {"bvh.duplicate_name", "rename one of the joints: tools address joints by name"},
    {"bvh.frame_count", "set 'Frames:' to the number of motion lines"},
    {"bvh.truncated", "the file ends early: export it again, or set 'Frames:' to the lines present"},
    {"bvh.unit", "pass --scale with the metres per unit shown (e.g. 0.01 for centimetres) when converting"},
    {"bvh.unit_unknown", "pass --scale to say how many metres one unit of the file is"},
    {"bvh.value_count", "every motion line needs one value per declared channel"},
    {"bvh.zero_bone", "give the joint a non-zero OFFSET from its parent, or merge it into the parent"},
    {"bvh.zero_end_site", "give the End Site the offset to the bone's tip"},
    {"collada.unit", "check <asset><unit meter=...>: kinegraph converts lengths to metres with it"},
    {"collada.up_axis", "robot models are read in their own frame; <up_axis> only matters to viewers"},
    {"collision.rest_pose", "move the collision geometry apart, or list the pair as disabled (SRDF disable_collisions)"},
    {"conversion.approximated", "expected for this target; keep the source file as the master copy"},
    {"conversion.defaulted", "give the value in the source so the target does not need a default"},
    {"conversion.dropped", "the target format cannot hold it; keep the source file, or carry it in a side file"},
    {"geometry.extra_shape", "put each shape in its own <visual> or <collision>"},
    {"geometry.missing", "add a <geometry> with one shape"},
    {"geometry.point", "a contact point is fine as it is; give the sphere a radius if it should collide"},
    {"geometry.scale_negative", "use a positive scale and a mirrored mesh file, or flip the triangles"},
    {"geometry.scale_zero", "give every mesh scale component a non-zero value (1 1 1 keeps the file's size)"},
    {"geometry.size_invalid", "give the shape positive dimensions (metres)"},
    {"io.memory", "the machine ran out of memory: free some, or check the file's sizes (frames, meshes) are what you meant"},
    {"joint.axis_not_unit", "write the axis as a unit vector; it was normalised"},
    {"joint.axis_zero", "give the joint a non-zero axis (e.g. xyz=\"0 0 1\")"},
    {"joint.duplicate", "rename one of the joints: names must be unique"},
    {"joint.effort_negative", "effort limits are magnitudes: make it positive"},
    {"joint.effort_zero", "give the actuator's real effort limit, or make the joint passive (a mimic or loop joint)"},
    {"joint.limit_degrees", "URDF limits are radians: convert (multiply degrees by pi/180)"},
    {"joint.limit_equal", "make the joint fixed, or give it a range"},
    {"joint.limit_inverted", "swap lower and upper"},
    {"joint.missing_link", "define the link, or correct the name the joint refers to"},
    {"joint.no_limit", "add <limit lower upper effort velocity> (radians or metres)"},
    {"joint.self_parent", "a joint connects two different links: correct <parent> or <child>"},
    {"joint.soft_limit_outside", "move soft_lower_limit/soft_upper_limit inside the hard limits"},
    {"joint.unknown_type", "use revolute, continuous, prismatic, fixed, floating or planar"},
    {"joint.velocity_negative", "velocity limits are magnitudes: make it positive"},
    {"joint.velocity_zero", "give the actuator's real velocity limit"},
    {"link.com_outside", "check the <inertial><origin>: it is usually inside the link's body"},
    {"link.density_implausible", "check the mass (kg) and the geometry's scale (metres)"},
    {"link.duplicate", "rename one of the links: names must be unique"},
    {"link.inertia_implausible", "recompute the inertia from the geometry (kinegraph mass --from-geometry)"},
    {"link.inertia_not_positive", "recompute the inertia: a physical one has positive principal moments"},
    {"link.inertia_triangle", "recompute the inertia: principal moments satisfy I1 + I2 >= I3"},
    {"link.inertia_zero", "give the link its moments of inertia (kinegraph mass --from-geometry estimates them)"},
    {"link.mass_negative", "masses are positive kilograms"},
    {"link.mass_tiny", "give the link a realistic mass, or join it to its parent with a fixed joint"},
    {"link.mass_zero", "give the link its real mass and inertia, or join it to its parent with a fixed joint"},
    {"link.no_inertial", "add an <inertial> with the link's mass, centre of mass and inertia"},
    {"loop.mobility", "informative: compare the mobility with the actuated joints"},
    {"loop.open", "check the joint origins of the loop: they should meet at the rest pose"},
    {"loop.rigid", "the mechanism is locked: check the loop's joint axes and types"},
    {"material.undefined", "define the material at the top of <robot>, or give the colour inline"},
    {"mesh.scale_large", "set the mesh scale (0.001 for millimetres) or fix the file's <unit>"},
    {"mesh.scale_small", "set the mesh scale (1 for a file already in metres) or fix the file's <unit>"},
    {"mesh.unreadable", "check the file is a mesh assimp reads (STL, DAE, OBJ, ...)"},
    {"mesh.unresolved", "check the path, or give --package-path for package:// references"},
    {"mimic.cycle", "break the cycle: one joint of it must be independent"},
    {"mimic.missing_leader", "name an existing joint in <mimic joint=...>"},
    {"mimic.self", "a joint cannot mimic itself: name another joint"},
    {"model.no_inertials", "add <inertial> to the moving links before simulating"},
    {"motion.angle_jump", "unwrap the angles (add or subtract 360 degrees) or re-export the clip"},
    {"motion.outside_limits", "the motion goes beyond the joint limits: check limits or the motion"},
    {"name.scope", "rename without '::'"},
    {"name.whitespace", "rename without spaces (use '_')"},
    {"topology.loop_forbidden", "URDF is a tree: remove the extra joint, or describe the loop in COLLADA"},
    {"topology.multiple_roots", "connect the trees with a joint (fixed to a common base link)"},
    {"topology.no_root", "some joint must start the tree: every link is a child here"},
    {"topology.unreachable", "connect the link to the tree with a joint"},
    {"urdf.extension_attribute", "fine if a tool you use reads it; other URDF readers ignore it"},
    {"urdf.missing_attribute", "add the attribute the message names"},
    {"urdf.missing_element", "add the element the message names"},
    {"urdf.unknown_attribute", "check the spelling against the URDF specification"},
    {"urdf.unknown_element", "check the spelling against the URDF specification"},
    {"urdf.version", "URDF has version 1.0 only"},
    {"xml.bad_number", "write plain decimal numbers separated by spaces"},
    {"xml.declaration", "write the first line as <?xml version=\"1.0\"?>"},
    {"xml.entity_expansion", "write the text out instead of DTD entities, or raise KG_LIMIT_XML_ENTITY_EXPANSION (environment)"},
    {"xml.malformed", "fix the XML at the line shown (a missing '>' or quote, a tag not closed)"},
    {"zae.ratio", "unpack the archive and read the .dae, or raise KG_LIMIT_ZAE_RATIO (environment) if you trust it"},
    {"zae.too_large", "unpack the archive and read the .dae, or raise KG_LIMIT_ZAE_SIZE (environment)"},
};

static const hint families[] = {
    {"bvh", "see the BVH layout: HIERARCHY, ROOT/JOINT/End Site with OFFSET and CHANNELS, then MOTION"},
    {"collada", "see the COLLADA 1.5 specification for the element named"},
    {"conversion", "the target format cannot hold this as it is"},
    {"io", "check the file exists and is readable"},
    {"mass", "check the mesh file: a closed surface with outward-facing triangles"},
    {"xml", "fix the XML at the line shown"},
    {"zae", "a .zae is a zip with manifest.xml naming the root .dae"},
};

static const char *find(const hint *t, size_t n, const char *key, size_t len) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strncmp(t[mid].code, key, len);
        if (c == 0 && t[mid].code[len] != 0) c = 1;
        if (c == 0) return t[mid].text;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

const char *kg_diag_hint(const char *code) {
    if (!code) return NULL;
    const char *h = find(hints, sizeof hints / sizeof *hints, code, strlen(code));
    if (h) return h;
    const char *dot = strchr(code, '.');
    return dot ? find(families, sizeof families / sizeof *families, code, (size_t)(dot - code)) : NULL;
}
