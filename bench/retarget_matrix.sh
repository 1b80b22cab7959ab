#!/usr/bin/env bash
# retarget_matrix.sh: the retargeting quality matrix.
#
# Runs `kinegraph retarget` on every humanoid robot of the shared corpus (plus samples/humanoid.urdf) x a set of
# BVH clips covering every BVH dialect of the corpus, each run through the independent checker
# shared/tools/retarget_quality.py (which runs kinegraph itself and computes the figures from the output CSV with its
# own kinematics), then prints and writes a Markdown matrix: the checker's --table and a SUMMARY of the project's
# bars (bench/retarget_matrix_summary.py: runs meeting / missing each bar, the worst run, misses per robot and clip).
#
# Usage: bench/retarget_matrix.sh [options]
#   --kinegraph PATH   the kinegraph command (default: build/kinegraph of this repository)
#   --data DIR         the shared corpus (default: $KINEGRAPH_DATA, else ../shared/data beside the repository)
#   --checker PATH     retarget_quality.py (default: DATA/../tools/retarget_quality.py)
#   --python PATH      the interpreter with numpy and PyKDL (default: $KINEGRAPH_PYTHON, else /usr/bin/python3)
#   --out DIR          where everything goes (default: build/retarget_matrix of this repository)
#   --jobs N           runs at a time (default: nproc); each run is one kinegraph process (one core) + the checker
#   --robots a,b       only these robots: folder name under DATA/urdf (unitree_g1, talos, ...) or URDF stem
#                      (g1_29dof_rev_1_0, talos_reduced, ...); the repository's sample is "humanoid"
#   --clips a,b        only these clips: file stem (01_01, dataset-1_walk_normal_001, ...) or dataset folder
#                      (cmu_cgspeed, bandai_namco, animated_drawings, ...)
#   --robot-file PATH  also this URDF (a robot the corpus does not have; repeatable), beside the selected ones
#   --quick            a small subset for trying: 3 robots x 3 short clips
#   -h, --help         this text
#
# Relative paths given as options are taken from the current directory; the defaults from the repository.
#
# Outputs (OUT = --out):
#   OUT/runs/<clip>__<robot>.{csv,json,log}   kinegraph's output, report and stderr (the checker's --keep)
#   OUT/runs/<clip>__<robot>.checker.log      the checker's stderr (the body parts it matched)
#   OUT/lines/NNN.json                        the checker's JSON line per run (one per run, any schedule)
#   OUT/results.jsonl                         those lines concatenated in the fixed order robot x clip
#   OUT/matrix.md                             header, the checker's table, the summary (also printed)
# A run the checker could not complete (it crashed, printed no line) gets a line with "status": "harness error".
# A robot whose knees and elbows the checker cannot find by joint name (leg_left_4_joint, LKP) is measured on a copy
# with those joints renamed from kinegraph's own body map (bench/checker_names.py; OUT/names/), kinegraph still
# running on the original; its line says so ("checker_names"). A robot with meshes the checker cannot read (COLLADA:
# it would measure the foot link's origin as the sole) is measured on a copy with those meshes converted to OBJ by
# assimp's command line (bench/checker_meshes.py; OUT/meshes/); its line says so ("checker_meshes").
# Exit status: 0 when the matrix was written, whatever the runs found; 2 on a usage error.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kinegraph="$repo/build/kinegraph"
data="${KINEGRAPH_DATA:-$repo/../shared/data}"
checker=""
python="${KINEGRAPH_PYTHON:-/usr/bin/python3}"
out="$repo/build/retarget_matrix"
jobs="$(nproc)"
robots_filter=""
clips_filter=""
quick=0
extra_robots=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "retarget_matrix.sh: $*" >&2; exit 2; }
abspath() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

while [ $# -gt 0 ]; do
    case "$1" in
        --kinegraph) [ $# -ge 2 ] || die "$1 needs a value"; kinegraph="$(abspath "$2")"; shift 2 ;;
        --data) [ $# -ge 2 ] || die "$1 needs a value"; data="$(abspath "$2")"; shift 2 ;;
        --checker) [ $# -ge 2 ] || die "$1 needs a value"; checker="$(abspath "$2")"; shift 2 ;;
        --python) [ $# -ge 2 ] || die "$1 needs a value"; python="$2"; shift 2 ;;
        --out) [ $# -ge 2 ] || die "$1 needs a value"; out="$(abspath "$2")"; shift 2 ;;
        --jobs|-j) [ $# -ge 2 ] || die "$1 needs a value"; jobs="$2"; shift 2 ;;
        --robots) [ $# -ge 2 ] || die "$1 needs a value"; robots_filter="$2"; shift 2 ;;
        --clips) [ $# -ge 2 ] || die "$1 needs a value"; clips_filter="$2"; shift 2 ;;
        --robot-file) [ $# -ge 2 ] || die "$1 needs a value"; [ -f "$2" ] || die "no robot file $2"
            extra_robots+=("$(abspath "$2")"); shift 2 ;;
        --quick) quick=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive integer, not '$jobs'"
data="$(cd "$data" 2>/dev/null && pwd)" || die "no data folder (give --data DIR or KINEGRAPH_DATA)"
[ -n "$checker" ] || checker="$data/../tools/retarget_quality.py"
[ -x "$kinegraph" ] || die "kinegraph not found or not executable: $kinegraph"
[ -f "$checker" ] || die "checker not found: $checker"
"$python" -c 'import numpy, PyKDL' 2>/dev/null || die "$python lacks numpy or PyKDL (python3-numpy, python3-pykdl)"
summary="$repo/bench/retarget_matrix_summary.py"

# id|URDF (under DATA/urdf; @/ = under the repository). atlas_v3 is kept even if kinegraph refuses it: a row.
robots=(
    "unitree_g1|unitree_g1/g1_description/g1_29dof_rev_1_0.urdf"
    "jvrc1|jvrc1/jvrc_description/urdf/jvrc1.urdf"
    "talos|talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf"
    "nao|nao/nao_robot/nao_description/urdf/naoV50_generated_urdf/nao.urdf"
    "romeo|romeo/example-robot-data/robots/romeo_description/urdf/romeo.urdf"
    "drchubo|drchubo/drchubo.urdf"
    "jaxon|jaxon/jaxon_description/urdf/jaxon_jvrc.urdf"
    "fourier_gr1t2|fourier_gr1t2/GRX/GR1/gr1t2/basic_urdf/gr1t2.urdf"
    "fourier_gr3|fourier_gr3/GRX/GR3/gr3v2_1_1/basic_urdf/gr3v2_1_1.urdf"
    "atlas_v3|atlas_v3/atlas_v3.urdf"
    "simple_humanoid|simple_humanoid/example-robot-data/robots/simple_humanoid_description/urdf/simple_humanoid.urdf"
    "humanoid|@/samples/humanoid.urdf"
)
# BVH clips under DATA/bvh: every dialect of the corpus (CMU cgspeed and iClone, Bandai Namco, bvh_python,
# Animated Drawings' FAIR / Rokoko / SST / CMU / Mixamo exports, assimp's Boxing_Toes).
clips=(
    cmu_cgspeed/01_01.bvh
    cmu_iclone/005_02.bvh
    cmu_iclone/007_01.bvh
    bandai_namco/dataset-1_walk_normal_001.bvh
    bandai_namco/dataset-1_run_normal_001.bvh
    bandai_namco/dataset-1_dance-short_normal_001.bvh
    bandai_namco/dataset-2_walk-turn-left_elderly_001.bvh
    bvh_python/test_mocapbank.bvh
    bvh_python/test_freebvh.bvh
    animated_drawings/examples/bvh/fair1/zombie.bvh
    animated_drawings/examples/bvh/rokoko/jesse_dance.bvh
    animated_drawings/animate/Data/BVH/sst/walk_circle.bvh
    animated_drawings/examples/bvh/cmu1/jumping_jacks.bvh
    animated_drawings/animate/Data/BVH/mixamo/Boxing_mixamo.com.bvh
    animated_drawings/animate/Data/BVH/cmu_new2/bassai.bvh
    assimp_misc/Boxing_Toes.bvh
)
if [ "$quick" = 1 ]; then
    [ -n "$robots_filter" ] || robots_filter="unitree_g1,jvrc1,humanoid"
    [ -n "$clips_filter" ] || clips_filter="dataset-1_run_normal_001,dataset-1_walk_normal_001,test_freebvh"
fi

# wanted FILTER ID... : true when FILTER is empty or names one of the IDs.
wanted() {
    local f="$1"; shift
    [ -z "$f" ] && return 0
    local w id
    IFS=',' read -ra w <<< "$f"
    for id in "$@"; do for x in "${w[@]}"; do [ "$x" = "$id" ] && return 0; done; done
    return 1
}
stem() { local b="${1##*/}"; printf '%s\n' "${b%.*}"; }

sel_robots=(); sel_clips=()
for r in "${robots[@]}"; do
    id="${r%%|*}"; rel="${r#*|}"
    case "$rel" in @/*) path="$repo/${rel#@/}" ;; *) path="$data/urdf/$rel" ;; esac
    wanted "$robots_filter" "$id" "$(stem "$path")" || continue
    [ -f "$path" ] || { echo "retarget_matrix.sh: warning: robot $id: no file $path; left out" >&2; continue; }
    sel_robots+=("$path")
done
for path in ${extra_robots[@]+"${extra_robots[@]}"}; do sel_robots+=("$path"); done
for c in "${clips[@]}"; do
    path="$data/bvh/$c"
    wanted "$clips_filter" "$(stem "$path")" "${c%%/*}" "$(basename "$(dirname "$path")")" || continue
    [ -f "$path" ] || { echo "retarget_matrix.sh: warning: no clip $path; left out" >&2; continue; }
    sel_clips+=("$path")
done
[ ${#sel_robots[@]} -gt 0 ] || die "no robot selected (filter '$robots_filter')"
[ ${#sel_clips[@]} -gt 0 ] || die "no clip selected (filter '$clips_filter')"

mkdir -p "$out/runs"
rm -rf "$out/lines" "$out/meshes"; mkdir -p "$out/lines"
# Robots with meshes the checker cannot read: their copies, made once before the runs (bench/checker_meshes.py).
if command -v assimp > /dev/null; then
    for r in "${sel_robots[@]}"; do
        "$python" "$repo/bench/checker_meshes.py" "$r" "$out/meshes/$(stem "$r")" > /dev/null ||
            echo "retarget_matrix.sh: warning: $(stem "$r"): meshes not converted; the checker measures it as it can" >&2
    done
else
    echo "retarget_matrix.sh: warning: no assimp command (assimp-utils): COLLADA feet are measured at their link's origin" >&2
fi
rm -f "$out/results.jsonl" "$out/matrix.md"

# The task list, in the fixed order robot x clip: index, clip, URDF (tab-separated).
tasks="$out/tasks.tsv"; : > "$tasks"
n=0
for r in "${sel_robots[@]}"; do
    for c in "${sel_clips[@]}"; do
        n=$((n + 1)); printf '%03d\t%s\t%s\n' "$n" "$c" "$r" >> "$tasks"
    done
done

# One run: the checker with --keep OUT/runs, its line into OUT/lines/NNN.json. Never fails (a crash is a line).
run_one() {
    local idx clip urdf st line rc measured run_robot=()
    IFS=$'\t' read -r idx clip urdf <<< "$1"
    st="$(stem "$clip")__$(stem "$urdf")"
    line="$out/lines/$idx.json"
    rm -f "$out/runs/$st".{csv,json,log}          # a refused run must not leave an older run's report behind
    measured="$out/meshes/$(stem "$urdf")/$(basename "$urdf")"   # the copy with meshes the checker reads, if made
    if [ -f "$measured" ]; then run_robot=(--run-robot "$urdf"); else measured="$urdf"; fi
    rc=0
    "$python" "$checker" "$kinegraph" "$clip" "$measured" "${run_robot[@]}" --keep "$out/runs" > "$line.tmp" \
        2> "$out/runs/$st.checker.log" || rc=$?
    # The checker finds knees and elbows by joint name; for robots named by number, again on a copy named
    # from kinegraph's own map (bench/checker_names.py), the run's line saying so.
    if [ "$rc" -eq 0 ] && grep -q '"harness_error": "ValueError: robot: no .* found by name' "$line.tmp"; then
        local named="$out/names/$(stem "$urdf")" copy
        if copy=$("$python" "$repo/bench/checker_names.py" "$kinegraph" "$clip" "$measured" "$named" 2>> "$out/runs/$st.checker.log"); then
            "$python" "$checker" "$kinegraph" "$clip" "$copy" --run-robot "$urdf" --names "$named/names.json" \
                --keep "$out/runs" > "$line.tmp" 2>> "$out/runs/$st.checker.log" || rc=$?
            "$python" -c 'import json,sys; d=json.loads(sys.stdin.readline()); d["checker_names"]="kinegraph map: knees and elbows renamed (bench/checker_names.py)"; print(json.dumps(d))' \
                < "$line.tmp" > "$line.named" && mv "$line.named" "$line.tmp"
        fi
    fi
    if [ "$rc" -eq 0 ] && [ "$measured" != "$urdf" ] && grep -q '^{' "$line.tmp"; then
        "$python" -c 'import json,sys; d=json.loads(sys.stdin.readline()); d["checker_meshes"]="meshes converted to OBJ for the checker (bench/checker_meshes.py)"; print(json.dumps(d))' \
            < "$line.tmp" > "$line.meshes" && mv "$line.meshes" "$line.tmp"
    fi
    if [ "$rc" -ne 0 ] || ! grep -q '^{' "$line.tmp"; then
        "$python" - "$clip" "$urdf" "$rc" "$out/runs/$st.checker.log" > "$line.tmp" <<'PY'
import json, os, sys
clip, urdf, rc, log = sys.argv[1:]
tail = [l for l in open(log, errors="replace").read().splitlines() if l.strip()][-1:] or [""]
print(json.dumps({"clip": os.path.basename(clip), "robot": os.path.basename(urdf), "status": "harness error",
                  "exit_code": None, "error": None,
                  "harness_error": "checker exited %s: %s" % (rc, tail[0][:300])}))
PY
    fi
    grep -m1 '^{' "$line.tmp" > "$line"; rm -f "$line.tmp"
    printf '[%s] %s\n' "$idx" "$(cut -c1-160 "$line" | sed 's/"parts".*//')" >&2
}
export -f run_one stem
export out python checker kinegraph repo

echo "retarget matrix: ${#sel_robots[@]} robots x ${#sel_clips[@]} clips = $n runs, $jobs at a time -> $out" >&2
t0=$(date +%s.%N)
tr '\n' '\0' < "$tasks" | xargs -0 -P "$jobs" -n 1 bash -c 'run_one "$1"' _
t1=$(date +%s.%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')

while IFS=$'\t' read -r idx _ _; do cat "$out/lines/$idx.json"; done < "$tasks" > "$out/results.jsonl"

commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty="$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | head -c1)"
{
    echo "# Retargeting quality matrix"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); kinegraph \`$kinegraph\` (repository at $commit${dirty:+, with uncommitted changes}," \
         "binary of $(date -u -r "$kinegraph" '+%Y-%m-%d %H:%M UTC')); checker \`$(basename "$checker")\`;" \
         "${#sel_robots[@]} robots x ${#sel_clips[@]} clips = $n runs, $jobs at a time on $(nproc) cores: ${elapsed} s."
    echo
    "$python" "$checker" --table "$out/results.jsonl"
    echo
    "$python" "$summary" "$out/results.jsonl" --runs "$out/runs"
} > "$out/matrix.md"
cat "$out/matrix.md"
echo "retarget matrix: $n runs in ${elapsed} s; $out/matrix.md, $out/results.jsonl" >&2
