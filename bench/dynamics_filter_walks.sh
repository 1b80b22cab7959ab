#!/usr/bin/env bash
# dynamics_filter_walks.sh: issue 27's bar for `retarget --dynamics-filter` - the multibody ZMP outside the
# support polygon, % of contact frames, before and after the filter, on the corpus walks (the four Bandai Namco
# walks, CMU iClone 007_01, walk_circle and samples/walk.bvh) onto G1, JVRC-1, Talos and the sample humanoid.
# Prints one line per run and how many end below 5 %. The figures are the report's `dynamics_filter`.
#
# Usage: bench/dynamics_filter_walks.sh [--kinegraph PATH] [--data DIR] [--out DIR]
#   --kinegraph PATH   the kinegraph command (default: build/kinegraph of this repository)
#   --data DIR         the shared corpus (default: $KINEGRAPH_DATA, else ../shared/data beside the repository)
#   --out DIR          where the motions and reports go (default: build/dynamics_filter_walks)
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
kinegraph="$repo/build/kinegraph"
data="${KINEGRAPH_DATA:-$repo/../shared/data}"
out="$repo/build/dynamics_filter_walks"
while [ $# -gt 0 ]; do
    case "$1" in
        --kinegraph) kinegraph="$(realpath "$2")"; shift 2 ;;
        --data) data="$(realpath "$2")"; shift 2 ;;
        --out) out="$(realpath -m "$2")"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "dynamics_filter_walks.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$kinegraph" ] || { echo "dynamics_filter_walks.sh: $kinegraph is not built" >&2; exit 1; }
[ -d "$data" ] || { echo "dynamics_filter_walks.sh: SKIPPED: no corpus at $data (set KINEGRAPH_DATA)" >&2; exit 77; }
mkdir -p "$out"

find_one() { find "$data" -name "$1" -print -quit; }
clips=(
    "$data/bvh/bandai_namco/dataset-1_walk_normal_001.bvh"
    "$data/bvh/bandai_namco/dataset-2_walk-turn-left_elderly_001.bvh"
    "$data/bvh/bandai_namco/dataset-1_walk_giant_001.bvh"
    "$data/bvh/bandai_namco/dataset-1_walk-back_normal_001.bvh"
    "$(find_one 007_01.bvh)"
    "$(find_one walk_circle.bvh)"
    "$repo/samples/walk.bvh"
)
robots=(
    "$(find_one g1_29dof_rev_1_0.urdf)"
    "$(find_one jvrc1.urdf)"
    "$(find_one talos_reduced.urdf)"
    "$repo/samples/humanoid.urdf"
)

runs=0 met=0
for r in "${robots[@]}"; do
    for c in "${clips[@]}"; do
        [ -f "$c" ] && [ -f "$r" ] || { echo "missing: ${c:-clip} or ${r:-robot}" >&2; continue; }
        name="$(basename "$c" .bvh)__$(basename "$r" .urdf)"
        "$kinegraph" retarget "$c" --robot "$r" -o "$out/$name.csv" --report "$out/$name.json" --dynamics-filter \
            2>"$out/$name.log" || { echo "$name: kinegraph failed (see $out/$name.log)"; continue; }
        line=$(/usr/bin/python3 - "$out/$name.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1])).get("dynamics_filter") or {}
b, a = f.get("multibody_zmp_outside_percent_before"), f.get("multibody_zmp_outside_percent_after")
print("n/a n/a" if a is None else "%.1f %.1f" % (b, a))
EOF
)
        read -r before after <<<"$line"
        printf '%-48s %6s -> %6s %%\n' "$name" "$before" "$after"
        runs=$((runs + 1))
        [ "$after" != n/a ] && awk -v a="$after" 'BEGIN { exit !(a < 5) }' && met=$((met + 1))
    done
done
echo "below 5 % after the filter: $met of $runs runs"
