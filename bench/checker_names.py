#!/usr/bin/python3
"""checker_names.py: a copy of a robot's URDF the checker can read the knees and elbows of.

Usage: checker_names.py KINEGRAPH CLIP ROBOT.urdf OUTDIR

shared/tools/retarget_quality.py finds a robot's knees and elbows by their joint names (knee, shin, calf, ...);
robots named by number (leg_left_4_joint, LLEG_JOINT3, LKP) stop it before it measures anything. This writes
OUTDIR/<ROBOT's file name>, the same URDF with the joints into kinegraph's knee and elbow links renamed
left_knee_joint, right_elbow_joint, ... and every mesh reference made absolute (file://, found as the checker
finds them: beside the URDF, or package://NAME in a folder above it), and OUTDIR/names.json, the checker's
--names map (the original joint names to the new ones), for

    retarget_quality.py KINEGRAPH CLIP OUTDIR/ROBOT.urdf --run-robot ROBOT.urdf --names OUTDIR/names.json

kinegraph still retargets onto the original; the checker computes every figure from the copy, whose
kinematics are the original's. The knees and elbows are kinegraph's own body map (`retarget --print-map`): a
figure measured this way trusts that map, which the matrix says ("checker_names" in the run's line).
Prints the copy's path. Exit status 1 when the map or the URDF cannot be read.
"""
import json, os, subprocess, sys
import xml.etree.ElementTree as ET

PARTS = ("left_knee", "right_knee", "left_elbow", "right_elbow")


def resolve(fn, urdf_dir):
    """A mesh reference as a path, looked up as the checker does (None when not found)."""
    if fn.startswith("file://"): return fn[7:]
    if not fn.startswith("package://"): return os.path.join(urdf_dir, fn)
    pkg, _, rest = fn[10:].partition("/")
    d = urdf_dir
    while d != os.path.dirname(d):
        for c in (os.path.join(d, pkg, rest), os.path.join(d, rest) if os.path.basename(d) == pkg else ""):
            if c and os.path.exists(c): return c
        d = os.path.dirname(d)
    return None


def main():
    if len(sys.argv) != 5: sys.exit(__doc__)
    kinegraph, clip, urdf, outdir = sys.argv[1:]
    p = subprocess.run([kinegraph, "retarget", clip, "--robot", urdf, "--print-map"], capture_output=True, text=True)
    if p.returncode != 0: sys.exit("checker_names: %s --print-map failed: %s" % (kinegraph, p.stderr.strip()[-300:]))
    links = json.loads(p.stdout)["robot"]
    tree = ET.parse(urdf)
    root = tree.getroot()
    names = {}
    for j in root.iter("joint"):
        child = j.find("child")
        for part in PARTS:
            if child is not None and child.get("link") == links.get(part):
                names[j.get("name")] = part + "_joint"
    for j in root.iter("joint"):
        if j.get("name") in names: j.set("name", names[j.get("name")])
        m = j.find("mimic")
        if m is not None and m.get("joint") in names: m.set("joint", names[m.get("joint")])
    here = os.path.dirname(os.path.abspath(urdf))
    for mesh in root.iter("mesh"):
        path = resolve(mesh.get("filename", ""), here)
        if path: mesh.set("filename", "file://" + os.path.abspath(path))
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, os.path.basename(urdf))
    # written aside and renamed: the matrix runs several clips of one robot at a time, and a checker
    # reading the copy while another run rewrote it found it empty
    tmp = "%s.%d.tmp" % (out, os.getpid())
    tree.write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, out)
    tmp = os.path.join(outdir, "names.json.%d.tmp" % os.getpid())
    json.dump({"joints": names}, open(tmp, "w"), indent=1)
    os.replace(tmp, os.path.join(outdir, "names.json"))
    print(out)


if __name__ == "__main__":
    main()
