#!/usr/bin/python3
"""Replace every link and joint name of a URDF or BVH file by an anonymous one (j0, j1, ...).

    anonymize.py IN.urdf|IN.bvh OUT [--names MAP.json] [--package-path DIR]...

The body map must find a humanoid's parts by structure, names only breaking ties: a model whose
names say nothing must map to the same parts. This writes such a model, and MAP.json, which gives
the names back: {"joints": {"j3": "left_knee", ...}, "links": {"j0": "pelvis", ...}} (the form
/work/shared/tools/retarget_quality.py takes with --run-robot OUT --names MAP.json).

URDF: links are numbered first, in file order, then joints, on one count (no name is used twice);
every reference is renamed with them (a joint's parent and child, mimic, a transmission's joint,
a gazebo reference). Mesh files that resolve from IN's folder (relative paths, package:// through
--package-path, ROS_PACKAGE_PATH or IN's ancestor folders) are written as file:// paths, so OUT
works from any folder. Comments are dropped; all else is kept.
BVH: ROOT and JOINT names in file order; End Sites have none. A BVH joint is also its link, so
both maps hold every name. MAP.json defaults to OUT with .names.json for its extension.
"""
import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET


def resolve(uri, folder, package_paths):
    """The file a mesh reference names, or None (kinegraph's formats/resolve.h, in brief)."""
    if uri.startswith("file://"):
        return uri[7:] if os.path.isfile(uri[7:]) else None
    if not uri.startswith("package://"):
        path = os.path.join(folder, uri)
        return os.path.abspath(path) if os.path.isfile(path) else None
    package, _, rest = uri[len("package://"):].partition("/")
    dirs = list(package_paths) + [d for d in os.environ.get("ROS_PACKAGE_PATH", "").split(":") if d]
    for d in dirs:
        for c in (os.path.join(d, package, rest), os.path.join(d, rest) if os.path.basename(d) == package else None):
            if c and os.path.isfile(c):
                return os.path.abspath(c)
    d = os.path.abspath(folder)
    while True:
        for c in (os.path.join(d, rest) if os.path.basename(d) == package else None, os.path.join(d, package, rest)):
            if c and os.path.isfile(c):
                return c
        if os.path.dirname(d) == d:
            return None
        d = os.path.dirname(d)


def anonymize_urdf(src, dst, package_paths):
    tree = ET.parse(src)
    robot = tree.getroot()
    links = [l.get("name") for l in robot.findall("link")]
    joints = [j.get("name") for j in robot.findall("joint")]
    new_link = {n: "j%d" % i for i, n in enumerate(links)}
    new_joint = {n: "j%d" % (len(links) + i) for i, n in enumerate(joints)}
    for l in robot.findall("link"):
        l.set("name", new_link[l.get("name")])
    for j in robot.findall("joint"):
        j.set("name", new_joint[j.get("name")])
        for tag in ("parent", "child"):
            e = j.find(tag)
            if e is not None and e.get("link") in new_link:
                e.set("link", new_link[e.get("link")])
        m = j.find("mimic")
        if m is not None and m.get("joint") in new_joint:
            m.set("joint", new_joint[m.get("joint")])
    for t in robot.findall("transmission"):
        for j in t.findall("joint"):
            if j.get("name") in new_joint:
                j.set("name", new_joint[j.get("name")])
        for j in t.iter("joint"):  # the old form: <joint>name</joint>
            if j.text and j.text.strip() in new_joint:
                j.text = new_joint[j.text.strip()]
    for g in robot.findall("gazebo"):
        ref = g.get("reference")
        if ref in new_link or ref in new_joint:
            g.set("reference", new_link.get(ref, new_joint.get(ref)))
    folder = os.path.dirname(os.path.abspath(src))
    for mesh in robot.iter("mesh"):
        path = resolve(mesh.get("filename", ""), folder, package_paths)
        if path:
            mesh.set("filename", "file://" + path)
    tree.write(dst, encoding="unicode", xml_declaration=True)
    return ({v: k for k, v in new_joint.items()}, {v: k for k, v in new_link.items()})


def anonymize_bvh(src, dst):
    back, out, n = {}, [], 0
    with open(src) as f:
        text = f.read()
    head, sep, motion = text.partition("MOTION")
    for line in head.splitlines(keepends=True):
        m = re.match(r"^(\s*)(ROOT|JOINT)(\s+)(\S.*?)(\s*)$", line)
        if m:
            name = "j%d" % n
            back[name] = m.group(4)
            n += 1
            line = m.group(1) + m.group(2) + m.group(3) + name + ("\n" if line.endswith("\n") else "")
        out.append(line)
    with open(dst, "w") as f:
        f.write("".join(out) + sep + motion)
    return back, dict(back)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="a URDF or BVH file")
    ap.add_argument("output")
    ap.add_argument("--names", help="where to write MAP.json (default: OUTPUT with .names.json)")
    ap.add_argument("--package-path", action="append", default=[], help="a folder to find package:// meshes in")
    a = ap.parse_args()
    if a.input.lower().endswith(".bvh"):
        joints, links = anonymize_bvh(a.input, a.output)
    else:
        joints, links = anonymize_urdf(a.input, a.output, a.package_path)
    names = a.names or os.path.splitext(a.output)[0] + ".names.json"
    with open(names, "w") as f:
        json.dump({"joints": joints, "links": links}, f, indent=1, sort_keys=False)
        f.write("\n")
    print("%s: %d joints, %d links anonymized; names in %s" % (a.output, len(joints), len(links), names))


if __name__ == "__main__":
    main()
