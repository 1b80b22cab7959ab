#!/usr/bin/env bash
# Runs every benchmark and the peers in one go; JSON results in build/bench/results/.
# Configured by CMake into the build tree (./setup.sh bench runs it).
set -uo pipefail
src="@PROJECT_SOURCE_DIR@"
bin="@CMAKE_CURRENT_BINARY_DIR@"
data="${KINEGRAPH_DATA:-$src/../shared/data}"
out="$bin/results"
mkdir -p "$out"
g1="$data/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
if [ -f "$g1" ]; then
    "$bin/bench_fk" "$g1" | tee "$out/fk_kinegraph_g1.json"
    "$bin/bench_jacobian" "$g1" left_rubber_hand | tee "$out/jacobian_kinegraph_g1.json"
    "$bin/bench_dynamics" "$g1" | tee "$out/dynamics_g1.json"
    [ -x "$bin/peers_fk" ] && "$bin/peers_fk" "$g1" 20000 left_rubber_hand 2>/dev/null | tee "$out/fk_peers_g1.json"
else
    echo "NOTICE: $data absent; the G1 benchmarks are skipped"
fi
"$bin/bench_fk" "$src/samples/humanoid.urdf" | tee "$out/fk_kinegraph_sample.json"
[ -x "$bin/peers_fk" ] && "$bin/peers_fk" "$src/samples/humanoid.urdf" 2>/dev/null | grep -v mujoco | tee "$out/fk_peers_sample.json"
if [ -d "$data/urdf" ]; then
    mapfile -d '' files < <(find "$data/urdf" -iname '*.urdf' -print0 | sort -z)
    "$bin/bench_parse" 20 "${files[@]}" > "$out/parse_kinegraph.json"
    [ -x "$bin/peers_parse" ] && "$bin/peers_parse" 20 "${files[@]}" > "$out/parse_urdfdom.json" 2>/dev/null
    python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
k = json.load(open(out + "/parse_kinegraph.json"))
try:
    u = json.load(open(out + "/parse_urdfdom.json"))
except Exception:
    u = None
print(json.dumps({"benchmark": "parse", "files": len(k["files"]), "kinegraph_total_ms": k["total_ms"],
                  "kinegraph_files_per_second": k["files_per_second"],
                  "urdfdom_total_ms": u and u["total_ms"], "urdfdom_files_per_second": u and u["files_per_second"],
                  "urdfdom_failed": u and [f["file"].split("/urdf/")[-1] for f in u["files"] if not f["ok"]]}))
PY
    if command -v check_urdf >/dev/null; then
        t0=$(date +%s%N)
        for f in "${files[@]}"; do check_urdf "$f" >/dev/null 2>&1; done
        t1=$(date +%s%N)
        t2=$(date +%s%N)
        for f in "${files[@]}"; do "$bin/../kinegraph" info "$f" >/dev/null 2>&1; done
        t3=$(date +%s%N)
        echo "{\"benchmark\": \"parse_cli\", \"files\": ${#files[@]}, \"check_urdf_ms\": $(( (t1 - t0) / 1000000 )), \"kinegraph_info_ms\": $(( (t3 - t2) / 1000000 ))}" | tee "$out/parse_cli.json"
    fi
fi
if [ -d "$data/urdf" ]; then
    # kinegraph check over every URDF (the corpus and bad/), 2 jobs: the
    # checker's own time (its summary) and the process's, best of 7; with and
    # without reading meshes. urdfdom's parse time is parse_urdfdom.json above.
    mapfile -d '' urdfs < <(find "$data/urdf" "$data/bad/urdf" -iname '*.urdf' -print0 | sort -z)
    python3 - "$bin/../kinegraph" "$out" "${urdfs[@]}" <<'PY' | tee "$out/check_kinegraph.json"
import json, subprocess, sys, time
exe, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
res = {"benchmark": "check", "files": len(files), "jobs": 2}
for name, extra in (("no_meshes", ["--no-meshes"]), ("meshes", [])):
    best_in, best_wall = 1e9, 1e9
    for _ in range(7):
        t0 = time.perf_counter()
        p = subprocess.run([exe, "check", "--jobs", "2", "--no-progress", "--json", "-"] + extra + files,
                           capture_output=True, text=True)
        wall = time.perf_counter() - t0
        s = json.loads(p.stdout)["summary"]
        best_in, best_wall = min(best_in, s["seconds"]), min(best_wall, wall)
    res[name] = {"seconds": round(best_in, 4), "files_per_second": round(len(files) / best_in),
                 "process_seconds": round(best_wall, 4), "process_files_per_second": round(len(files) / best_wall)}
print(json.dumps(res))
PY
fi
bvh=(animated_drawings/animate/Data/BVH/cmu_new2/bassai.bvh cmu_cgspeed/01_03.bvh assimp_misc/Boxing_Toes.bvh
     bandai_namco/dataset-1_dance-short_normal_001.bvh cmu_iclone/005_02.bvh)
if [ -d "$data/bvh" ]; then
    clips=()
    for c in "${bvh[@]}"; do clips+=("$data/bvh/$c"); done
    warm="$src/samples/walk.bvh"
    for c in "${clips[@]}"; do "$bin/bench_bvh" "$warm" "$c"; done | tee "$out/bvh_kinegraph.json"
    [ -x "$bin/peers_bvh" ] && for c in "${clips[@]}"; do "$bin/peers_bvh" "$warm" "$c"; done | tee "$out/bvh_assimp.json"
fi
pr2="$data/collada/openrave/zae/pr2-beta-static.zae"
if [ -f "$pr2" ]; then
    "$bin/bench_parse" 20 "$pr2" | tee "$out/collada_kinegraph.json"
fi

# PR2 URDF -> COLLADA, meshes included: kinegraph (library, and the command as a
# process) against ROS's urdf_to_collada in the same run. The peer resolves
# package:// through rospack, so it gets a workspace where the corpus's
# "example-robot-data" is a package (a package.xml beside a link to it).
pr2u="$data/urdf/pr2/example-robot-data/robots/pr2_description/urdf/pr2.urdf"
if [ -f "$pr2u" ]; then
    tmp=$(mktemp -d)
    "$bin/bench_convert" 11 "$pr2u" "$tmp/pr2_lib.dae" | tee "$out/convert_kinegraph_pr2.json"
    mkdir -p "$tmp/ws/example-robot-data"
    ln -s "$data/urdf/pr2/example-robot-data/robots" "$tmp/ws/example-robot-data/robots"
    cat > "$tmp/ws/example-robot-data/package.xml" <<'XML'
<?xml version="1.0"?>
<package format="2"><name>example-robot-data</name><version>0.0.0</version><description>benchmark shim</description><maintainer email="none@example.org">none</maintainer><license>BSD</license></package>
XML
    peer=/usr/lib/collada_urdf/urdf_to_collada
    python3 - "$bin/../kinegraph" "$peer" "$pr2u" "$tmp" <<'PY' | tee "$out/convert_peers_pr2.json"
import json, os, statistics, subprocess, sys, time
kg, peer, urdf, tmp = sys.argv[1:5]
env = dict(os.environ, ROS_PACKAGE_PATH=tmp + "/ws")
def once(cmd, out):
    t0 = time.perf_counter()
    r = subprocess.run(cmd + [urdf, out], env=env, capture_output=True)
    return time.perf_counter() - t0 if r.returncode == 0 else None
kt, pt = [], []
have_peer = os.access(peer, os.X_OK)
for _ in range(21):  # interleaved, so background load falls on both alike
    kt.append(once([kg, "convert"], tmp + "/pr2_cli.dae"))
    if have_peer:
        pt.append(once([peer], tmp + "/pr2_peer.dae"))
k_ms = statistics.median(kt) * 1e3 if None not in kt else None
p_ms = statistics.median(pt) * 1e3 if pt and None not in pt else None
k_bytes = os.path.getsize(tmp + "/pr2_cli.dae") if k_ms else None
p_bytes = os.path.getsize(tmp + "/pr2_peer.dae") if p_ms else None
print(json.dumps({"benchmark": "convert_cli", "input": "pr2.urdf", "output": "dae",
                  "kinegraph_convert_median_ms": k_ms, "kinegraph_bytes": k_bytes,
                  "urdf_to_collada_median_ms": p_ms, "urdf_to_collada_bytes": p_bytes,
                  "speedup": p_ms / k_ms if k_ms and p_ms else None}))
PY
    rm -rf "$tmp"
fi

# Workspace: samples per second with manipulability, one core, a 7-DOF arm.
iiwa="$data/urdf/kuka_iiwa7/differentiable-robot-model/diff_robot_data/kuka_iiwa/urdf/iiwa7.urdf"
if [ -f "$iiwa" ]; then
    "$bin/bench_workspace" "$iiwa" iiwa_link_ee 2000000 | tee "$out/workspace_kinegraph_iiwa7.json"
fi

# Self-collision matrix of the G1: 1 million samples on 2 threads (the command,
# with its own timing), and what MoveIt's fixed 10 000 samples would call "never"
# among the pairs the million finds colliding.
if [ -f "$g1" ]; then
    "$bin/../kinegraph" collisions "$g1" --json --samples 1000000 --min-samples 1000000 --threads 2 \
        > "$out/collisions_g1_1m.json"
    "$bin/../kinegraph" collisions "$g1" --json --samples 10000 --min-samples 10000 --threads 2 \
        > "$out/collisions_g1_10k.json"
    python3 - "$out" <<'PY' | tee "$out/collisions_g1.json"
import json, sys
out = sys.argv[1]
big = json.load(open(out + "/collisions_g1_1m.json"))
small = json.load(open(out + "/collisions_g1_10k.json"))
cls10k = {(p["a"], p["b"]): p["class"] for p in small["pairs"]}
hit = [p for p in big["pairs"] if p["class"] not in ("adjacent", "declared") and p["hits"]]
missed = [p for p in hit if cls10k[(p["a"], p["b"])] == "never"]
print(json.dumps({"benchmark": "collision_matrix", "model": "g1", "samples": big["samples"], "threads": 2,
                  "seconds": big["seconds"], "shapes": big["shapes"], "hull_vertices": big["hull_vertices"],
                  "summary": big["summary"], "pairs_hit_in_1m": len(hit),
                  "never_at_10k_but_hit_in_1m": len(missed),
                  "missed": [[p["a"], p["b"], p["hits"]] for p in missed]}))
PY
    t0=$(date +%s%N)
    "$bin/../kinegraph" mass "$g1" --from-geometry --json > /dev/null 2>&1
    t1=$(date +%s%N)
    echo "{\"benchmark\": \"mass_from_geometry\", \"model\": \"g1\", \"command_ms\": $(( (t1 - t0) / 1000000 ))}" | tee "$out/mass_geometry_g1.json"
fi

# Inverse kinematics by the TRAC-IK protocol (10 000 targets per chain, 5 ms budget),
# KDL's solvers on the same targets in the same run.
ik_chains=(
    "urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf base_link tool0"
    "urdf/panda/example-robot-data/robots/panda_description/urdf/panda.urdf panda_link0 panda_link8"
    "urdf/kuka_iiwa7/differentiable-robot-model/diff_robot_data/kuka_iiwa/urdf/iiwa7.urdf iiwa_link_0 iiwa_link_ee"
    "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf torso_link left_rubber_hand"
    "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf pelvis left_ankle_roll_link"
    "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf pelvis right_rubber_hand"
)
for c in "${ik_chains[@]}"; do
    set -- $c
    [ -f "$data/$1" ] || continue
    "$bin/bench_ik" "$data/$1" "$2" "$3" 10000 5 | tee -a "$out/ik.json"
    [ -x "$bin/peers_ik" ] && "$bin/peers_ik" "$data/$1" "$2" "$3" 10000 5 2>/dev/null | tee -a "$out/ik.json"
done
# Retargeting: CMU 01_01 (the issue's clip) and a walk onto G1, single thread.
rm -f "$out/retarget.json"
if [ -f "$g1" ]; then
    for clip in bvh/cmu_cgspeed/01_01.bvh bvh/animated_drawings/animate/Data/BVH/sst/walk_circle.bvh; do
        [ -f "$data/$clip" ] && OPENBLAS_NUM_THREADS=1 "$bin/bench_retarget" "$data/$clip" "$g1" 5 | tee -a "$out/retarget.json"
    done
fi
OPENBLAS_NUM_THREADS=1 "$bin/bench_retarget" "$src/samples/walk.bvh" "$src/samples/humanoid.urdf" 5 | tee -a "$out/retarget.json"
# Writing a retargeted motion: the first 1 000 frames of the Bandai Namco short dance on G1
# (retargeted here, convert's CSV layout) to glTF (meshes and animation) and .npz; then the
# command for the whole clip (1 901 frames), read model and CSV included.
dance="$data/bvh/bandai_namco/dataset-1_dance-short_normal_001.bvh"
if [ -f "$g1" ] && [ -f "$dance" ]; then
    tmp=$(mktemp -d)
    OPENBLAS_NUM_THREADS=1 "$bin/../kinegraph" retarget "$dance" --robot "$g1" -o "$tmp/dance.csv" --csv-layout kinegraph 2>/dev/null
    "$bin/bench_export" 11 1000 "$g1" "$tmp/dance.csv" "$tmp/dance.glb" "$tmp/dance.npz" | tee "$out/export_motion_g1.json"
    python3 - "$bin/../kinegraph" "$g1" "$tmp" <<'PY' | tee -a "$out/export_motion_g1.json"
import json, statistics, subprocess, sys, time
kg, g1, tmp = sys.argv[1:4]
res = {"benchmark": "export_motion_cli", "frames": 1901}
for ext in ("glb", "npz"):
    t = []
    for _ in range(7):
        t0 = time.perf_counter()
        subprocess.run([kg, "convert", g1, tmp + "/cli." + ext, "--motion", tmp + "/dance.csv"], check=True,
                       capture_output=True)
        t.append(time.perf_counter() - t0)
    res["convert_" + ext + "_median_ms"] = round(statistics.median(t) * 1e3, 1)
print(json.dumps(res))
PY
    rm -rf "$tmp"
fi
