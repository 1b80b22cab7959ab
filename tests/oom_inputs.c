/* The inputs test_oom reads besides the samples, made in a folder of its own
 * so that the test needs no corpus: each exercises a reader path the samples
 * do not (see oom_inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "oom_inputs.h"

#include <stdio.h>
#include <string.h>
#include <zip.h>

/* A COLLADA 1.4 skeleton, as animation tools write them: JOINT nodes (one
 * instanced from library_nodes), transforms animated whole (a matrix) and by
 * member (an angle, with STEP and BEZIER keys), a mesh with a material, and a
 * skin controller. */
static const char skeleton[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    " <asset><unit meter=\"0.01\"/><up_axis>Y_UP</up_axis></asset>\n"
    " <library_effects><effect id=\"fx\"><profile_COMMON><technique sid=\"t\"><phong><diffuse>"
    "<color>0.8 0.6 0.5 1</color></diffuse></phong></technique></profile_COMMON></effect></library_effects>\n"
    " <library_materials><material id=\"mat\" name=\"skin\"><instance_effect url=\"#fx\"/></material>"
    "</library_materials>\n"
    " <library_geometries><geometry id=\"tet\" name=\"tet\"><mesh>\n"
    "  <source id=\"tet-p\"><float_array id=\"tet-pa\" count=\"12\">0 0 0 10 0 0 0 10 0 0 0 10</float_array>"
    "<technique_common><accessor source=\"#tet-pa\" count=\"4\" stride=\"3\"><param name=\"X\" type=\"float\"/>"
    "<param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
    "  <vertices id=\"tet-v\"><input semantic=\"POSITION\" source=\"#tet-p\"/></vertices>\n"
    "  <triangles count=\"4\" material=\"m\"><input semantic=\"VERTEX\" source=\"#tet-v\" offset=\"0\"/>"
    "<p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>\n"
    " </mesh></geometry></library_geometries>\n"
    " <library_controllers><controller id=\"skin\"><skin source=\"#tet\"><bind_shape_matrix>"
    "1 0 0 0 0 1 0 0 0 0 1 5 0 0 0 1</bind_shape_matrix></skin></controller></library_controllers>\n"
    " <library_animations>\n"
    "  <animation id=\"a-root\">\n"
    "   <source id=\"rt\"><float_array id=\"rta\" count=\"2\">0 1</float_array><technique_common>"
    "<accessor source=\"#rta\" count=\"2\" stride=\"1\"><param name=\"TIME\" type=\"float\"/></accessor>"
    "</technique_common></source>\n"
    "   <source id=\"rv\"><float_array id=\"rva\" count=\"32\">1 0 0 0 0 1 0 90 0 0 1 0 0 0 0 1 "
    "0 -1 0 10 1 0 0 90 0 0 1 5 0 0 0 1</float_array><technique_common><accessor source=\"#rva\" "
    "count=\"2\" stride=\"16\"><param name=\"TRANSFORM\" type=\"float4x4\"/></accessor></technique_common>"
    "</source>\n"
    "   <sampler id=\"rs\"><input semantic=\"INPUT\" source=\"#rt\"/><input semantic=\"OUTPUT\" source=\"#rv\"/>"
    "</sampler>\n"
    "   <channel source=\"#rs\" target=\"root/m\"/>\n"
    "  </animation>\n"
    "  <animation id=\"a-hip\">\n"
    "   <source id=\"ht\"><float_array id=\"hta\" count=\"3\">0 0.5 1</float_array><technique_common>"
    "<accessor source=\"#hta\" count=\"3\" stride=\"1\"><param name=\"TIME\" type=\"float\"/></accessor>"
    "</technique_common></source>\n"
    "   <source id=\"hv\"><float_array id=\"hva\" count=\"3\">0 30 -10</float_array><technique_common>"
    "<accessor source=\"#hva\" count=\"3\" stride=\"1\"><param name=\"ANGLE\" type=\"float\"/></accessor>"
    "</technique_common></source>\n"
    "   <source id=\"hi\"><Name_array id=\"hia\" count=\"3\">BEZIER STEP LINEAR</Name_array><technique_common>"
    "<accessor source=\"#hia\" count=\"3\" stride=\"1\"><param name=\"INTERPOLATION\" type=\"name\"/>"
    "</accessor></technique_common></source>\n"
    "   <source id=\"hin\"><float_array id=\"hina\" count=\"6\">0 0 0.4 25 0.9 -8</float_array>"
    "<technique_common><accessor source=\"#hina\" count=\"3\" stride=\"2\"><param name=\"X\" type=\"float\"/>"
    "<param name=\"Y\" type=\"float\"/></accessor></technique_common></source>\n"
    "   <source id=\"hout\"><float_array id=\"houta\" count=\"6\">0.1 5 0.6 30 1 -10</float_array>"
    "<technique_common><accessor source=\"#houta\" count=\"3\" stride=\"2\"><param name=\"X\" type=\"float\"/>"
    "<param name=\"Y\" type=\"float\"/></accessor></technique_common></source>\n"
    "   <sampler id=\"hs\"><input semantic=\"INPUT\" source=\"#ht\"/><input semantic=\"OUTPUT\" source=\"#hv\"/>"
    "<input semantic=\"INTERPOLATION\" source=\"#hi\"/><input semantic=\"IN_TANGENT\" source=\"#hin\"/>"
    "<input semantic=\"OUT_TANGENT\" source=\"#hout\"/></sampler>\n"
    "   <channel source=\"#hs\" target=\"hip/rz.ANGLE\"/>\n"
    "  </animation>\n"
    " </library_animations>\n"
    " <library_nodes><node id=\"foot\" name=\"foot\" type=\"JOINT\"><translate>0 -40 0</translate>"
    "<rotate>1 0 0 10</rotate></node></library_nodes>\n"
    " <library_visual_scenes><visual_scene id=\"scene\" name=\"scene\">\n"
    "  <node id=\"root\" name=\"root\" sid=\"root\" type=\"JOINT\"><matrix sid=\"m\">"
    "1 0 0 0 0 1 0 90 0 0 1 0 0 0 0 1</matrix>\n"
    "   <node id=\"hip\" name=\"hip\" sid=\"hip\" type=\"JOINT\"><translate sid=\"t\">0 -10 0</translate>"
    "<rotate sid=\"rz\">0 0 1 0</rotate>\n"
    "    <node id=\"knee\" name=\"knee\" type=\"JOINT\"><translate>0 -40 0</translate>"
    "<scale>1 1 1</scale>\n"
    "     <instance_geometry url=\"#tet\"><bind_material><technique_common><instance_material symbol=\"m\" "
    "target=\"#mat\"/></technique_common></bind_material></instance_geometry>\n"
    "     <instance_node url=\"#foot\" name=\"foot\"/>\n"
    "    </node>\n"
    "   </node>\n"
    "  </node>\n"
    "  <node id=\"prop\" name=\"prop\"><instance_controller url=\"#skin\"/></node>\n"
    " </visual_scene></library_visual_scenes>\n"
    " <scene><instance_visual_scene url=\"#scene\"/></scene>\n"
    "</COLLADA>\n";

/* A URDF whose names and numbers come through internal entities (in
 * attributes and in text), which the XML reader substitutes itself. */
static const char entities[] =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE robot [\n"
    " <!ENTITY len \"0.3\">\n"
    " <!ENTITY side \"left\">\n"
    " <!ENTITY note \"an &side; leg, &len; m\">\n"
    "]>\n"
    "<robot name=\"&side;_leg\">\n"
    " <!-- &note; -->\n"
    " <link name=\"base\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" "
    "iyz=\"0\" izz=\"0.01\"/></inertial></link>\n"
    " <link name=\"&side;_thigh\"><visual><geometry><box size=\"0.1 0.1 &len;\"/></geometry></visual>"
    "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" "
    "izz=\"0.01\"/></inertial></link>\n"
    " <joint name=\"&side;_hip\" type=\"revolute\"><parent link=\"base\"/><child link=\"&side;_thigh\"/>"
    "<origin xyz=\"0 0.1 -&len;\"/><axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"10\" "
    "velocity=\"1\"/></joint>\n"
    " <gazebo reference=\"&side;_thigh\"><material>&note;</material></gazebo>\n"
    "</robot>\n";

/* A small robot with a bit of everything the COLLADA writer and reader carry:
 * materials, primitives of each kind as visuals and collisions, inertials,
 * revolute, continuous, prismatic and mimic joints, an extension. */
static const char robot[] =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"tiny\">\n"
    " <material name=\"grey\"><color rgba=\"0.5 0.5 0.5 1\"/></material>\n"
    " <link name=\"base\"><inertial><mass value=\"2\"/><inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" "
    "iyz=\"0\" izz=\"0.02\"/></inertial><visual><geometry><box size=\"0.2 0.2 0.1\"/></geometry>"
    "<material name=\"grey\"/></visual><collision><geometry><box size=\"0.2 0.2 0.1\"/></geometry></collision>"
    "</link>\n"
    " <link name=\"arm\"><inertial><origin xyz=\"0 0 0.15\"/><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" "
    "ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.001\"/></inertial><visual><origin xyz=\"0 0 0.15\"/><geometry>"
    "<cylinder radius=\"0.03\" length=\"0.3\"/></geometry><material name=\"red\"><color rgba=\"1 0 0 1\"/>"
    "</material></visual><collision><origin xyz=\"0 0 0.15\"/><geometry><cylinder radius=\"0.03\" "
    "length=\"0.3\"/></geometry></collision></link>\n"
    " <link name=\"slider\"><inertial><mass value=\"0.5\"/><inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" "
    "iyy=\"0.001\" iyz=\"0\" izz=\"0.001\"/></inertial><visual><geometry><sphere radius=\"0.04\"/></geometry>"
    "</visual></link>\n"
    " <link name=\"finger\"><inertial><mass value=\"0.1\"/><inertia ixx=\"0.0001\" ixy=\"0\" ixz=\"0\" "
    "iyy=\"0.0001\" iyz=\"0\" izz=\"0.0001\"/></inertial></link>\n"
    " <link name=\"wheel\"><inertial><mass value=\"0.2\"/><inertia ixx=\"0.0002\" ixy=\"0\" ixz=\"0\" "
    "iyy=\"0.0002\" iyz=\"0\" izz=\"0.0002\"/></inertial></link>\n"
    " <joint name=\"shoulder\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
    "<origin xyz=\"0 0 0.05\" rpy=\"0 0.1 0\"/><axis xyz=\"0 1 0\"/><limit lower=\"-1.5\" upper=\"1.5\" "
    "effort=\"20\" velocity=\"2\"/><dynamics damping=\"0.1\" friction=\"0.01\"/></joint>\n"
    " <joint name=\"extend\" type=\"prismatic\"><parent link=\"arm\"/><child link=\"slider\"/>"
    "<origin xyz=\"0 0 0.3\"/><axis xyz=\"0 0 1\"/><limit lower=\"0\" upper=\"0.1\" effort=\"50\" "
    "velocity=\"0.5\"/></joint>\n"
    " <joint name=\"grip\" type=\"revolute\"><parent link=\"slider\"/><child link=\"finger\"/>"
    "<axis xyz=\"1 0 0\"/><limit lower=\"0\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
    "<mimic joint=\"shoulder\" multiplier=\"0.5\" offset=\"0.1\"/></joint>\n"
    " <joint name=\"spin\" type=\"continuous\"><parent link=\"base\"/><child link=\"wheel\"/>"
    "<origin xyz=\"0.1 0 0\"/><axis xyz=\"1 0 0\"/></joint>\n"
    " <gazebo reference=\"arm\"><material>Gazebo/Red</material></gazebo>\n"
    "</robot>\n";

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int oom_write_skeleton(const char *path) { return write_text(path, skeleton); }

int oom_write_robot(const char *path) { return write_text(path, robot); }

int oom_write_entities(const char *path) { return write_text(path, entities); }

int oom_write_zae(const char *path, const char *dae, const char *inner) {
    int err = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) return -1;
    char manifest[512];
    snprintf(manifest, sizeof manifest, "<?xml version=\"1.0\"?>\n<dae_root>./%s</dae_root>\n", inner);
    zip_source_t *m = zip_source_buffer(z, strdup(manifest), strlen(manifest), 1);
    zip_source_t *d = zip_source_file(z, dae, 0, -1);
    int rc = m && d && zip_file_add(z, "manifest.xml", m, 0) >= 0 && zip_file_add(z, inner, d, 0) >= 0 ? 0 : -1;
    return zip_close(z) == 0 ? rc : -1;
}
