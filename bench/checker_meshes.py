#!/usr/bin/python3
"""checker_meshes.py: a copy of a robot's URDF whose meshes the checker can read.

Usage: checker_meshes.py ROBOT.urdf OUTDIR [--assimp PATH]

shared/tools/retarget_quality.py reads STL and OBJ meshes only: a robot whose feet are COLLADA meshes is measured
at the foot link's origin (its run's "soles" says "no geometry: heights are off by its height"), so its hover,
slip and penetration are not about the sole. This writes OUTDIR/<ROBOT's file name>, the same URDF with every mesh
reference made absolute (file://) and every mesh in another format converted to OBJ by the assimp command line
(OUTDIR/meshes/), for

    retarget_quality.py KINEGRAPH CLIP OUTDIR/ROBOT.urdf --run-robot ROBOT.urdf

The conversion keeps the mesh in its file's own frame, scaled to metres by its <unit>, as ROS's viewers (rviz)
and kinegraph read a URDF's mesh: assimp turns a COLLADA scene to Y up at its root (a Z_UP file comes out turned
90 degrees about x), so the file is exported from a copy that declares Y_UP, the only change. kinegraph still
retargets onto the original; the copy's kinematics and joints are the original's.

Prints the copy's path; prints nothing (and writes nothing) when every mesh is already STL or OBJ, or none was
found. Exit status 1 when the URDF cannot be read or a mesh cannot be converted.
"""
import os, re, subprocess, sys
import xml.etree.ElementTree as ET

from checker_names import resolve

READABLE = (".stl", ".obj")   # what the checker's mesh_vertices reads


def convert(path, outdir, n, assimp):
    """path (not STL/OBJ) as OUTDIR/meshes/<n>_<name>.obj in its file's frame and unit; the OBJ's path."""
    os.makedirs(os.path.join(outdir, "meshes"), exist_ok=True)
    base = os.path.join(outdir, "meshes", "%d_%s" % (n, os.path.splitext(os.path.basename(path))[0]))
    src = path
    if path.lower().endswith(".dae"):
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        src = base + ".dae"   # beside the OBJ: textures are not needed for vertices
        with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(re.sub(r"<up_axis>\s*[XYZ]_UP\s*</up_axis>", "<up_axis>Y_UP</up_axis>", text))
    p = subprocess.run([assimp, "export", src, base + ".obj"], capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(base + ".obj"):
        sys.exit("checker_meshes: %s export %s failed: %s" % (assimp, path, (p.stderr or p.stdout).strip()[-300:]))
    return base + ".obj"


def main():
    args = sys.argv[1:]
    assimp = "assimp"
    if "--assimp" in args:
        i = args.index("--assimp")
        if i + 1 >= len(args): sys.exit(__doc__)
        assimp = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2: sys.exit(__doc__)
    urdf, outdir = args
    try:
        tree = ET.parse(urdf)
    except (OSError, ET.ParseError) as e:
        sys.exit("checker_meshes: %s: %s" % (urdf, e))
    here = os.path.dirname(os.path.abspath(urdf))
    meshes = [(m, resolve(m.get("filename", ""), here)) for m in tree.getroot().iter("mesh")]
    todo = sorted({p for _, p in meshes if p and os.path.exists(p) and not p.lower().endswith(READABLE)})
    if not todo: return
    done = {p: convert(p, outdir, n, assimp) for n, p in enumerate(todo)}
    for m, p in meshes:
        if p: m.set("filename", "file://" + os.path.abspath(done.get(p, p)))
    out = os.path.join(outdir, os.path.basename(urdf))
    tmp = "%s.%d.tmp" % (out, os.getpid())
    tree.write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, out)
    print(out)


if __name__ == "__main__":
    main()
