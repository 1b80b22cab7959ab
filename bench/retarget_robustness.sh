#!/usr/bin/env bash
# retarget_robustness.sh: how one retargeting run's figures spread under perturbations that should not matter.
#
# A long clip on a humanoid whose joints often sit at their limits can be chaotic: a change in the last digits
# of one frame's numbers decides, hundreds of frames later, whether a hanging foot is carried off and the robot
# falls. One run then says little about a change, and a matrix's count of bars moves with luck. This runs the
# same clip and robot N times with the tuning's w_damping (the Levenberg-Marquardt damping, 1e-6) changed in
# its tenth significant digit - nothing a user would tell apart - and prints each run's figures and how many
# fell: the robot's root below FRACTION of its first frame's height for MARGIN seconds longer than the
# source's pelvis is below that fraction of its own.
#
# Usage: bench/retarget_robustness.sh CLIP ROBOT [options] [-- RETARGET_OPTIONS...]
#   --kinegraph PATH   the kinegraph command (default: build/kinegraph of this repository)
#   --runs N           how many runs (default 12, at most 100)
#   --fraction F       the fall's height fraction (default 0.6)
#   --margin S         the fall's margin, seconds (default 0.5)
#   --tune NAME=VALUE,...  more of the tuning, set beside w_damping on every run (not w_damping itself)
#   --python PATH      the interpreter (default: $KINEGRAPH_PYTHON, else /usr/bin/python3)
#   -h, --help         this text
# RETARGET_OPTIONS go to every `kinegraph retarget`; they hold no --tune (the command takes one: use this
# script's --tune).
# Output: one line per run (its w_damping; slip mm, pose p95 deg, ZMP outside %, the frames the root is low,
# fell 0/1), then "falls K of N".
# Exit status: 0 when every run was made, 1 when one failed, 2 on a usage error.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kinegraph="$repo/build/kinegraph"
python="${KINEGRAPH_PYTHON:-/usr/bin/python3}"
runs=12
fraction=0.6
margin=0.5
tune=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
[ $# -ge 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; } && { usage; exit 0; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
clip="$1" robot="$2"
shift 2
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --kinegraph | --runs | --fraction | --margin | --tune | --python)
        [ $# -ge 2 ] || { echo "retarget_robustness.sh: $1 takes a value" >&2; exit 2; } ;;&
    --kinegraph) kinegraph="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --fraction) fraction="$2"; shift 2 ;;
    --margin) margin="$2"; shift 2 ;;
    --tune) tune="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "retarget_robustness.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
case "$runs" in '' | *[!0-9]*) echo "retarget_robustness.sh: --runs takes 1 to 100" >&2; exit 2 ;; esac
runs=$((10#$runs)) # 08 is eight, not an octal error
[ "$runs" -ge 1 ] && [ "$runs" -le 100 ] || { echo "retarget_robustness.sh: --runs takes 1 to 100" >&2; exit 2; }
# the command keeps one --tune: a second would drop the perturbation, and every run would be the same
case ",$tune" in *,w_damping=*) echo "retarget_robustness.sh: --tune must not set w_damping" >&2; exit 2 ;; esac
for a in "${extra[@]}"; do
    [ "$a" != --tune ] || { echo "retarget_robustness.sh: give --tune before --, not after" >&2; exit 2; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
falls=0
for ((k = 0; k < runs; k++)); do
    damping="$(printf '1.%09de-6' "$k")"
    if ! OPENBLAS_NUM_THREADS=1 "$kinegraph" retarget "$clip" --robot "$robot" -o "$tmp/out.csv" \
        --report "$tmp/report.json" --trace "$tmp/trace.csv" --tune "w_damping=$damping${tune:+,$tune}" "${extra[@]}" \
        > /dev/null 2> "$tmp/err"; then
        echo "run $k failed:" >&2
        cat "$tmp/err" >&2
        exit 1
    fi
    line="$("$python" - "$tmp" "$fraction" "$margin" << 'EOF'
import csv, json, sys
d, frac, margin = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rows = list(csv.DictReader(open(d + "/trace.csv")))
root = [float(r["root_z"]) for r in rows]
src = [float(r["src_pelvis_z"]) for r in rows]
low = sum(z < frac * root[0] for z in root)
src_low = sum(z < frac * src[0] for z in src)
rep = json.load(open(d + "/report.json"))
print("%d %.1f %.1f %.1f %d" % (low > src_low + margin / rep["frame_time"], rep["foot_slip_max_mm"], rep["pose_error_p95_deg"],
                                rep["zmp_outside_percent"], low))
EOF
)"
    read -r fell slip pose zmp low <<< "$line"
    falls=$((falls + fell))
    printf 'w_damping %s: slip %s mm, pose p95 %s deg, ZMP outside %s %%, root low on %s frames, fell %s\n' \
        "$damping" "$slip" "$pose" "$zmp" "$low" "$fell"
done
echo "falls $falls of $runs"
