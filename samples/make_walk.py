#!/usr/bin/env python3
"""Writes samples/walk.bvh: kinegraph's own sample motion, a 4-second walk (120
frames at 30 fps, four steps) on a 20-joint human skeleton in centimetres, Y up,
facing +Z: feet planted while they stand (legs by exact two-link IK), arms and
spine swinging with sines. Run once; the output is committed. Not part of the build."""
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
# Feet planted: each foot stands for 60 % of a 2-second cycle (so both stand for
# 10 % around each step) and swings along a raised arc for the rest; the legs reach
# them by exact two-link inverse kinematics in the sagittal plane, the feet kept
# flat. Stride 60 cm per cycle (a step every second), the pelvis at constant speed.
T, frames, dt = 2.0, 120, 1 / 30
L1 = L2 = 42.0
out += ["MOTION", f"Frames: {frames}", f"Frame Time: {dt:.7f}"]

def foot(t, offset):
    """Ankle (z, y) of a foot at time t (its cycle shifted by offset)."""
    c = t / T - offset
    k = math.floor(c)
    u = c - k
    z0 = 60 * (k + offset + 0.3)
    if u < 0.6:
        return z0, 6.0
    s = (u - 0.6) / 0.4
    s2 = s * s * (3 - 2 * s)
    return z0 + 60 * s2, 6.0 + 8 * math.sin(math.pi * s)

def leg(hip, ankle):
    """X rotations (degrees) of thigh, knee and foot reaching ankle from hip."""
    dz, dy = ankle[0] - hip[0], ankle[1] - hip[1]
    d = min(math.hypot(dz, dy), L1 + L2 - 1e-6)
    alpha = math.atan2(-dz, -dy)  # the hip-ankle line from straight down, > 0 backwards
    beta = math.acos((L1 * L1 + d * d - L2 * L2) / (2 * L1 * d))
    gamma = math.acos((L2 * L2 + d * d - L1 * L1) / (2 * L2 * d))
    thigh, shin = alpha - beta, alpha + gamma  # the knee points forward
    deg = 180 / math.pi
    return thigh * deg, (shin - thigh) * deg, -shin * deg

for f in range(frames):
    t = f * dt
    ph = 2 * math.pi * t / T
    s = math.sin
    v = {n: [0.0, 0.0, 0.0] for n, *_ in J}  # Z X Y rotation, degrees
    root = [0.0, 89 - 1.0 * math.cos(2 * ph), 30 * t]  # 30 cm/s, bobbing twice a cycle
    v["Spine"] = [0, 2, -3 * s(ph)]
    v["Chest"] = [0, 2, -3 * s(ph)]
    v["Head"] = [0, -3, 2 * s(ph)]
    for side, sg, off in (("Left", 1, 0.0), ("Right", -1, 0.5)):
        hip = (root[2], root[1] - 5)
        a, k, fo = leg(hip, foot(t, off))
        v[side + "UpLeg"] = [0, a, 0]
        v[side + "Leg"] = [0, k, 0]
        v[side + "Foot"] = [0, fo, 0]
        sw = -sg * s(ph)  # arms swing against the legs
        v[side + "Arm"] = [sg * 10, 20 * sw, 0]
        v[side + "ForeArm"] = [0, -20 - 10 * max(0.0, sw), 0]
    vals = root + v["Hips"]
    for n, p, o, c in J[1:]:
        vals += v[n]
    out.append(" ".join(f"{x:.4f}" for x in vals))
open("walk.bvh", "w").write("\n".join(out) + "\n")
