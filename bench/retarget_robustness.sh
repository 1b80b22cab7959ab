#!/usr/bin/env bash
# retarget_robustness.sh: how one retargeting run's figures spread under perturbations that should not matter.
#
# A long clip on a humanoid whose joints often sit at their limits can be chaotic: a change in the last digits
# of one frame's numbers decides, hundreds of frames later, whether a hanging foot is carried off and the robot
# falls. One run then says little about a change, and a matrix's count of bars moves with luck. This runs the
# same clip and robot N times with the tuning's w_damping (the Levenberg-Marquardt damping, 1e-6) changed in
# its tenth significant digit - nothing a user would tell apart - and prints each run's figures and how many
# fell: the robot's hips low (the report's `hips_low` frames: more than 0.3 leg lengths below the source's) for
# MARGIN seconds running. (Counted frame by frame against the source's: a count over the whole clip against
# the source's own low frames let a kneel elsewhere in the clip hide a fall.)
#
# Usage: bench/retarget_robustness.sh CLIP ROBOT [options] [-- RETARGET_OPTIONS...]
#   --kinegraph PATH   the kinegraph command (default: build/kinegraph of this repository)
#   --runs N           how many runs (default 12, at most 100)
#   --margin S         the fall's margin, seconds (default 0.5)
#   --tune NAME=VALUE,...  more of the tuning, set beside w_damping on every run (not w_damping itself)
#   --python PATH      the interpreter (default: $KINEGRAPH_PYTHON, else /usr/bin/python3)
#   -h, --help         this text
# RETARGET_OPTIONS go to every `kinegraph retarget`; they hold no --tune (the command takes one: use this
# script's --tune).
# Output: one line per run (its w_damping; slip mm, pose p95 deg, ZMP outside %, the report's hips_low frames and
# their longest run, fell 0/1), then "falls K of N".
# Exit status: 0 when every run was made, 1 when one failed, 2 on a usage error.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kinegraph="$repo/build/kinegraph"
python="${KINEGRAPH_PYTHON:-/usr/bin/python3}"
runs=12
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
    --kinegraph | --runs | --margin | --tune | --python)
        [ $# -ge 2 ] || { echo "retarget_robustness.sh: $1 takes a value" >&2; exit 2; } ;;&
    --kinegraph) kinegraph="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
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
        --report "$tmp/report.json" --tune "w_damping=$damping${tune:+,$tune}" "${extra[@]}" \
        > /dev/null 2> "$tmp/err"; then
        echo "run $k failed:" >&2
        cat "$tmp/err" >&2
        exit 1
    fi
    line="$("$python" - "$tmp/report.json" "$margin" << 'EOF'
import json, sys
rep, margin = json.load(open(sys.argv[1])), float(sys.argv[2])
if "hips_low" not in rep.get("timeline", {}):
    sys.exit("retarget_robustness.sh: this kinegraph's report has no 'hips_low' timeline (a build before hips_low_frames)")
runs = rep["timeline"]["hips_low"]
longest = max([b - a + 1 for a, b in runs], default=0)
# frames, not seconds: 60 frames of a clip written 0.0083333 s apart are 0.499998 s
need = round(margin / rep["frame_time"])
print("%d %.1f %.1f %.1f %d %d" % (longest >= need, rep["foot_slip_max_mm"], rep["pose_error_p95_deg"],
                                   rep["zmp_outside_percent"], rep["hips_low_frames"], longest))
EOF
)"
    read -r fell slip pose zmp low longest <<< "$line"
    falls=$((falls + fell))
    printf 'w_damping %s: slip %s mm, pose p95 %s deg, ZMP outside %s %%, hips low on %s frames (longest run %s), fell %s\n' \
        "$damping" "$slip" "$pose" "$zmp" "$low" "$longest" "$fell"
done
echo "falls $falls of $runs"
