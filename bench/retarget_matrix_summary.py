#!/usr/bin/python3
"""SUMMARY of a retargeting quality matrix (bench/retarget_matrix.sh): the project's bars, counted per run.

Usage: retarget_matrix_summary.py RESULTS.jsonl [--runs DIR]

RESULTS.jsonl: retarget_quality.py's JSON lines (one per run). DIR (default: runs/ beside RESULTS.jsonl): where the
checker kept each run's files; kinegraph's report of a run is DIR/<clip stem>__<robot stem>.json (README,
"Retargeting", Report). Figures of the checker (root speed, limits, penetration, slip, hover, pose) come from the
line, those of kinegraph (ZMP, self-collision, speed, preparation) from the report. Any field may be missing (a run
that failed, an older or newer report): its bar is "n/a" for that run, counted apart, never a miss.
Prints Markdown: per bar the runs meeting it, missing it, not measured, the worst value and its run; the misses per
robot and per clip; the runs missing the most bars with the figures they miss; the runs that failed.
Standard library only.
"""
import argparse, json, os, re, sys


def num(x):
    """x as a float, or None when it is not a number."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def fmt(x, d=1):
    if x is None: return "n/a"
    if isinstance(x, float): return "%.*f" % (d, x)
    return str(x)


def stem(name): return os.path.splitext(os.path.basename(name or "?"))[0]


# ---------------------------------------------------------------- the bars
# Each bar: key, short name (column), the bar as the issue states it, and a function of (line, report) giving
# (measured?, miss?, badness for "worst" (larger is worse), the figure as text). Not measured: (False, ...).

NA = (False, False, None, "n/a")


def b_refused(L, R):
    rc = L.get("exit_code")
    if rc is None and L.get("status") != "ok":   # the checker itself did not run kinegraph to the end
        return NA
    miss = rc != 0
    return True, miss, 1.0 if miss else 0.0, ("exit %s: %s" % (rc, L.get("error") or "")) if miss else "exit 0"


def b_rejected(L, R):
    if L.get("exit_code") != 0: return NA
    miss = L.get("status") == "failed"
    return True, miss, 1.0 if miss else 0.0, (L.get("error") or "failed") if miss else "accepted"


def b_teleport(L, R):
    t, s = L.get("teleport_frames"), L.get("source_teleport_frames")
    if not isinstance(t, int): return NA
    s = s if isinstance(s, int) else 0
    v, vs = num(L.get("root_speed_max")), num(L.get("source_root_speed_max"))
    return True, t > s, float(t - s), "%d frames (source %d); root %s m/s (source %s)" % (t, s, fmt(v, 2), fmt(vs, 2))


def b_limits(L, R):
    a, b = L.get("limit_violations"), L.get("velocity_violations")
    if not isinstance(a, int) or not isinstance(b, int): return NA
    return True, a + b > 0, float(a + b), "%d / %d" % (a, b)


def threshold(key, bar, unit, d=1):
    def f(L, R):
        v = num(L.get(key))
        if v is None: return NA
        return True, v > bar, v, "%s %s" % (fmt(v, d), unit)
    return f


def b_zmp(L, R):
    if R is None: return NA
    v = num(R.get("zmp_outside_percent"))
    if v is None or R.get("contact_frames") == 0: return NA   # no foot ever down: no support polygon
    why = ""
    ref, fore = num(R.get("zmp_outside_reference_outside_percent")), num(R.get("zmp_outside_foreseen_percent"))
    if v > 5.0 and ref is not None and ref >= 0:   # why (older reports lack it; -1 without balance)
        why = "; %s %% with the reference out, %s %% had every landing been foreseen" % (fmt(ref), fmt(fore))
    return True, v > 5.0, v, "%s %% of %s contact frames%s" % (fmt(v), fmt(R.get("contact_frames")), why)


def b_collision(L, R):
    if R is None: return NA
    k = "self_collision_deep_frames" if "self_collision_deep_frames" in R else "self_collision_frames"
    v = R.get(k)
    if not isinstance(v, int): return NA      # null: the robot has no collision geometry
    depth = num(R.get("self_collision_depth_max_mm"))
    return True, v > 0, float(v), "%d frames (%s; deepest %s mm)" % (v, k, fmt(depth))


def fps_without_setup(R):
    if R is None: return None
    v = num(R.get("frames_per_second_without_setup"))
    if v is not None: return v
    f, s, u = num(R.get("frames")), num(R.get("seconds")), num(R.get("setup_seconds"))
    if None in (f, s, u) or s <= u: return None
    return f / (s - u)


def b_speed(L, R):
    v = fps_without_setup(R)
    if v is None: return NA
    return True, v < 5000.0, -v, "%.0f frames/s (%s frames)" % (v, fmt(R.get("frames")))


def b_speed_cpu(L, R):
    v = num(R.get("frames_per_cpu_second_without_setup")) if R is not None else None
    if v is None or v <= 0: return NA   # an older report, or a system without thread CPU clocks
    return True, v < 5000.0, -v, "%.0f frames per CPU second (%s frames)" % (v, fmt(R.get("frames")))


def b_prep(L, R):
    if R is None: return NA
    k = "setup_seconds" if num(R.get("setup_seconds")) is not None else "robot_seconds"
    v = num(R.get(k))
    if v is None: return NA
    rs = num(R.get("robot_seconds"))
    return True, v > 0.2, v, "%.0f ms (%s; robot %s ms)" % (1000 * v, k, fmt(None if rs is None else 1000 * rs, 0))


BARS = [
    ("refused", "refused", "kinegraph refuses the run (exit status not 0): none", b_refused),
    ("rejected", "rejected", "output rejected by the checker (kinegraph exit 0, checker status failed): none",
     b_rejected),
    ("teleport", "root>4", "root faster than 4 m/s between frames: 0 frames, unless the source's own pelvis "
     "(miss: teleport_frames > source_teleport_frames)", b_teleport),
    ("limits", "limits", "joint position / velocity limit violations (checker): 0 / 0", b_limits),
    ("penetration", "pen", "sole penetration (checker penetration_max_mm): <= 5 mm",
     threshold("penetration_max_mm", 5.0, "mm")),
    ("slip", "slip", "foot slip per stance run (checker slip_max_mm): <= 5 mm", threshold("slip_max_mm", 5.0, "mm")),
    ("hover", "hover", "hover (checker hover_percent): <= 5 % of frames", threshold("hover_percent", 5.0, "%")),
    ("pose", "pose", "pose error p95 (checker pose_p95_deg): <= 35 deg", threshold("pose_p95_deg", 35.0, "deg")),
    ("zmp", "zmp", "ZMP outside support (report zmp_outside_percent, of contact frames): <= 5 %", b_zmp),
    ("collision", "coll", "self-collision deeper than 5 mm (report; field used below): 0 frames", b_collision),
    ("speed", "fps", "speed, one core, without preparation (report frames / (seconds - setup_seconds), or "
     "frames_per_second_without_setup): >= 5000 frames/s", b_speed),
    ("speed_cpu", "fps cpu", "the same speed from the CPU time the solve's thread got (report "
     "frames_per_cpu_second_without_setup: without the waits for a core that other runs, the checker and "
     "preparation threads cause): >= 5000 frames/s", b_speed_cpu),
    ("prep", "prep", "preparation (report setup_seconds, else robot_seconds): <= 200 ms", b_prep),
]


# ---------------------------------------------------------------- reading

def load(results, runs):
    out = []
    for n, text in enumerate(open(results), 1):
        if not text.strip(): continue
        try:
            L = json.loads(text)
        except ValueError as e:
            L = {"clip": "line %d" % n, "robot": "?", "status": "unreadable", "error": str(e)}
        name = "%s__%s" % (stem(L.get("clip")), stem(L.get("robot")))
        R = None
        try:
            if L.get("exit_code") == 0:      # a refused run's report, if any, is not this run's
                R = json.load(open(os.path.join(runs, name + ".json")))
                if not isinstance(R, dict): R = None
        except (OSError, ValueError):
            R = None
        res = {}
        for key, _, _, f in BARS:
            try:
                res[key] = f(L, R)
            except Exception as e:           # a field of an unexpected type: not measured
                res[key] = (False, False, None, "n/a (%s)" % type(e).__name__)
        out.append(dict(name=name, clip=stem(L.get("clip")), robot=stem(L.get("robot")), line=L, report=R, res=res))
    return out


def esc(s): return str(s).replace("|", "/").replace("\n", " ")


# ---------------------------------------------------------------- the summary

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results"); ap.add_argument("--runs")
    ap.add_argument("--worst", type=int, default=10, help="how many of the runs missing most bars to list")
    a = ap.parse_args()
    runs = a.runs or os.path.join(os.path.dirname(os.path.abspath(a.results)), "runs")
    rows = load(a.results, runs)
    N = len(rows)
    p = print
    p("## SUMMARY\n")
    st = {}
    for r in rows: st[r["line"].get("status")] = st.get(r["line"].get("status"), 0) + 1
    p("%d runs: %s. Not measured (n/a): the figure is missing (a failed run; the checker could not match the robot's "
      "parts or rejected the output, so its figures are absent; a report field absent or null), neither met nor "
      "missed.\n" % (N, ", ".join("%d %s" % (v, k) for k, v in sorted(st.items(), key=lambda kv: -kv[1]))))
    p("| bar | meet | miss | n/a | worst (run) |")
    p("|---|---|---|---|---|")
    for key, short, text, _ in BARS:
        m = [r for r in rows if r["res"][key][0]]
        miss = [r for r in m if r["res"][key][1]]
        worst = max(m, key=lambda r: r["res"][key][2], default=None)
        w = "%s (%s)" % (esc(worst["res"][key][3])[:140], worst["name"]) if worst else "n/a"
        p("| %s | %d | %d | %d | %s |" % (text, len(m) - len(miss), len(miss), N - len(m), w))
    used = {}
    for r in rows:
        if r["report"] is not None:
            k = "self_collision_deep_frames" if "self_collision_deep_frames" in r["report"] else "self_collision_frames"
            used[k] = used.get(k, 0) + 1
    p("\nSelf-collision field used: %s (self_collision_deep_frames is preferred when a report has it; "
      "self_collision_frames counts any overlap of 10 um or more, so it is stricter than the 5 mm bar)." %
      (", ".join("%s in %d reports" % kv for kv in sorted(used.items())) or "n/a (no reports)"))
    low = sorted(((r["report"].get("hips_low_frames"), r["name"]) for r in rows
                  if r["report"] is not None and isinstance(r["report"].get("hips_low_frames"), int)), reverse=True)
    if low:
        hit = [x for x in low if x[0] > 0]
        p("Hips low (report hips_low_frames: the robot's hips more than 0.3 leg lengths below the source's; not one of the "
          "issue's bars): %d of %d runs have such frames%s." % (len(hit), len(low), "; most: " + ", ".join(
              "%s %d" % (n, v) for v, n in hit[:5]) if hit else ""))
    p("Speed and preparation are wall-clock figures of each kinegraph process, taken while other runs went on "
      "beside it (--jobs): on a loaded machine they read low.\n")

    for title, field in (("robot", "robot"), ("clip", "clip")):
        p("### Misses per %s\n" % title)
        p("| %s | runs | runs missing any | misses | %s |" % (title, " | ".join(b[1] for b in BARS)))
        p("|---|---|---|---|" + "---|" * len(BARS))
        for g in dict.fromkeys(r[field] for r in rows):
            R = [r for r in rows if r[field] == g]
            per = []
            for key, _, _, _ in BARS:
                meas = sum(1 for r in R if r["res"][key][0])
                per.append(str(sum(1 for r in R if r["res"][key][1])) if meas else "n/a")
            nm = [sum(1 for v in r["res"].values() if v[1]) for r in R]
            p("| %s | %d | %d | %d | %s |" % (g, len(R), sum(1 for x in nm if x), sum(nm), " | ".join(per)))
        p("")

    ranked = sorted(rows, key=lambda r: -sum(1 for v in r["res"].values() if v[1]))
    p("### The %d runs missing the most bars\n" % min(a.worst, N))
    p("| run | bars missed | figures missed |")
    p("|---|---|---|")
    for r in ranked[:a.worst]:
        missed = [(b[1], r["res"][b[0]][3]) for b in BARS if r["res"][b[0]][1]]
        na = [b[1] for b in BARS if not r["res"][b[0]][0]]
        p("| %s | %d | %s%s |" % (r["name"], len(missed), "; ".join("%s: %s" % (k, esc(v)[:110]) for k, v in missed),
                                  (" (n/a: %s)" % ", ".join(na)) if na else ""))
    p("")
    bad = [r for r in rows if r["line"].get("status") != "ok"]
    p("### Runs that did not complete (%d), grouped by robot and error\n" % len(bad))
    if not bad:
        p("none"); return 0
    groups = {}
    for r in bad:
        L = r["line"]
        err = L.get("error") or L.get("harness_error") or ""
        if L.get("error") and L.get("harness_error"): err += " (checker: %s)" % L["harness_error"]
        err = err.replace(str(L.get("clip")), "CLIP")     # one line per robot when only the clip differs
        for c in re.findall(r"\S+\.bvh", err): err = err.replace(c, "CLIP")
        groups.setdefault((r["robot"], L.get("status"), fmt(L.get("exit_code")), err), []).append(r["clip"])
    p("| robot | status | exit | runs | error (first line) |")
    p("|---|---|---|---|---|")
    nclips = len(set(r["clip"] for r in rows))
    for (robot, status, rc, err), clips in groups.items():
        which = "all %d clips" % len(clips) if len(clips) == nclips else "%d: %s" % (len(clips), ", ".join(clips))
        p("| %s | %s | %s | %s | %s |" % (robot, status, rc, which, esc(err)[:300]))

if __name__ == "__main__":
    sys.exit(main())
