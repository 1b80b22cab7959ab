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
    [ -x "$bin/peers_fk" ] && "$bin/peers_fk" "$g1" 2>/dev/null | tee "$out/fk_peers_g1.json"
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
