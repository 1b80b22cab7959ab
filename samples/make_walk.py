#!/usr/bin/env python3
"""Writes samples/walk.bvh: kinegraph's own sample motion, a 2-second walk cycle
(60 frames at 30 fps, two steps) on a 20-joint human skeleton in centimetres,
Y up, facing +Z, with the joints' rotations made of sines so the motion is
smooth and periodic. Run once; the output is committed. Not part of the build."""
import math

J = [  # name, parent, offset (cm), channels
    ("Hips", None, (0, 95, 0), "6"),
    ("Spine", "Hips", (0, 10, 0), "3"), ("Chest", "Spine", (0, 20, 0), "3"),
    ("Neck", "Chest", (0, 22, 0), "3"), ("Head", "Neck", (0, 10, 0), "3"),
    ("LeftShoulder", "Chest", (8, 18, 0), "3"), ("LeftArm", "LeftShoulder", (10, 0, 0), "3"),
    ("LeftForeArm", "LeftArm", (0, -28, 0), "3"), ("LeftHand", "LeftForeArm", (0, -25, 0), "3"),
    ("RightShoulder", "Chest", (-8, 18, 0), "3"), ("RightArm", "RightShoulder", (-10, 0, 0), "3"),
    ("RightForeArm", "RightArm", (0, -28, 0), "3"), ("RightHand", "RightForeArm", (0, -25, 0), "3"),
    ("LeftUpLeg", "Hips", (10, -5, 0), "3"), ("LeftLeg", "LeftUpLeg", (0, -42, 0), "3"),
    ("LeftFoot", "LeftLeg", (0, -42, 0), "3"), ("LeftToeBase", "LeftFoot", (0, -6, 13), "3"),
    ("RightUpLeg", "Hips", (-10, -5, 0), "3"), ("RightLeg", "RightUpLeg", (0, -42, 0), "3"),
    ("RightFoot", "RightLeg", (0, -42, 0), "3"), ("RightToeBase", "RightFoot", (0, -6, 13), "3"),
]
END = {"Head": (0, 18, 0), "LeftHand": (0, -18, 0), "RightHand": (0, -18, 0),
       "LeftToeBase": (0, 0, 6), "RightToeBase": (0, 0, 6)}
children = {}
for n, p, o, c in J:
    children.setdefault(p, []).append(n)
out = ["HIERARCHY"]

def node(n, depth):
    _, p, o, c = next(j for j in J if j[0] == n)
    t = "\t" * depth
    out.append(f"{t}{'ROOT' if p is None else 'JOINT'} {n}")
    out.append(t + "{")
    out.append(f"{t}\tOFFSET {o[0]:.4f} {o[1]:.4f} {o[2]:.4f}")
    ch = "Xposition Yposition Zposition Zrotation Xrotation Yrotation" if c == "6" else "Zrotation Xrotation Yrotation"
    out.append(f"{t}\tCHANNELS {c} {ch}")
    for k in children.get(n, []):
        node(k, depth + 1)
    if n in END:
        e = END[n]
        out.extend([f"{t}\tEnd Site", t + "\t{", f"{t}\t\tOFFSET {e[0]:.4f} {e[1]:.4f} {e[2]:.4f}", t + "\t}"])
    out.append(t + "}")

node("Hips", 0)
frames, dt = 60, 1 / 30
out += ["MOTION", f"Frames: {frames}", f"Frame Time: {dt:.7f}"]
for f in range(frames):
    ph = 2 * math.pi * f / frames  # one full cycle: a left and a right step
    s = math.sin
    v = {n: [0.0, 0.0, 0.0] for n, *_ in J}  # Z X Y rotation, degrees
    root = [0.0, 95 - 2.0 * abs(math.cos(ph)), 60 * f / frames]  # bobbing, 60 cm forward per cycle
    v["Hips"] = [2 * s(ph), 0, 5 * s(ph)]
    v["Spine"] = [0, 2, -3 * s(ph)]
    v["Chest"] = [0, 2, -3 * s(ph)]
    v["Head"] = [0, -3, 2 * s(ph)]
    for side, sg in (("Left", 1), ("Right", -1)):
        sw = sg * s(ph)
        v[side + "UpLeg"] = [0, -25 * sw, 0]
        v[side + "Leg"] = [0, 30 * max(0.0, sg * s(ph + 1.2)) + 5, 0]
        v[side + "Foot"] = [0, 10 * sw - 5, 0]
        v[side + "Arm"] = [sg * 10, 20 * sw, 0]  # slightly out, swinging against the leg
        v[side + "ForeArm"] = [0, -20 - 10 * max(0.0, sw), 0]
    vals = root + v["Hips"]
    for n, p, o, c in J[1:]:
        vals += v[n]
    out.append(" ".join(f"{x:.4f}" for x in vals))
open("walk.bvh", "w").write("\n".join(out) + "\n")
