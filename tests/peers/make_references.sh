#!/usr/bin/env bash
# Regenerates the peer references of the tests:
#  tests/reference/*.json      forward kinematics and mass properties of every corpus
#                              URDF that urdfdom can read, computed by KDL
#                              (kg_kdl_reference) at the zero pose and two random joint
#                              vectors (seed 20261122);
#  tests/reference/bvh/*.json  every node's world pose in assimp's BVH import at the
#                              first, middle and last frame (kg_assimp_bvh_reference);
#  tests/reference/collada/*.json  every node's world pose in assimp's import of each
#                              animated COLLADA file at the first, middle and last key
#                              of its first channel (kg_assimp_collada_reference).
# Run after ./setup.sh (which builds the programs in build/tests/).
set -euo pipefail
cd "$(dirname "$0")/../.."
data="${KINEGRAPH_DATA:-../shared/data}"
gen=build/tests/kg_kdl_reference
[ -x "$gen" ] || { echo "build $gen first (./setup.sh)" >&2; exit 1; }
out=tests/reference
mkdir -p "$out"
rm -f "$out"/*.json
n=0
while IFS= read -r -d '' f; do
    rel="${f#"$data"/}"
    label=$(echo "$rel" | sed 's#^urdf/##; s#^bad/urdf/##; s#/.*/#_#; s#[^A-Za-z0-9_.-]#_#g; s#\.[Uu][Rr][Dd][Ff]$##')
    if "$gen" "$f" "$rel" 20261122 3 >"$out/$label.json" 2>/dev/null; then
        n=$((n + 1))
    else
        echo "skipped (the peer cannot read it): $rel" >&2
        rm -f "$out/$label.json"
    fi
done < <(find "$data/urdf" "$data/bad/urdf/ros_urdf_tests" -iname '*.urdf' ! -name 'fail_*' -print0 | sort -z)
# the built-in sample, located relative to the source tree ("@source/")
"$gen" samples/humanoid.urdf "@source/samples/humanoid.urdf" 20261122 3 >"$out/sample_humanoid.json"
n=$((n + 1))
echo "wrote $n reference files to $out"

agen=build/tests/kg_assimp_bvh_reference
[ -x "$agen" ] || { echo "build $agen first (./setup.sh)" >&2; exit 1; }
mkdir -p "$out/bvh"
rm -f "$out/bvh"/*.json
n=0
while IFS= read -r -d '' f; do
    rel="${f#"$data"/}"
    label=$(basename "$f" .bvh | sed 's#[^A-Za-z0-9_.-]#_#g')
    "$agen" "$f" "$rel" auto >"$out/bvh/$label.json" && n=$((n + 1))
done < <(find "$data/bvh" -name '*.bvh' -print0 | sort -z)
for f in samples/walk.bvh tests/data/bvh/*.bvh; do
    "$agen" "$f" "@source/$f" auto >"$out/bvh/source_$(basename "$f" .bvh).json" && n=$((n + 1))
done
echo "wrote $n BVH reference files to $out/bvh"

cgen=build/tests/kg_assimp_collada_reference
[ -x "$cgen" ] || { echo "build $cgen first (./setup.sh)" >&2; exit 1; }
mkdir -p "$out/collada"
rm -f "$out/collada"/*.json
n=0
while IFS= read -r -d '' f; do
    rel="${f#"$data"/}"
    label=$(basename "$f" | sed 's#\.[^.]*$##; s#[^A-Za-z0-9_.-]#_#g')
    if "$cgen" "$f" "$rel" >"$out/collada/$label.json" 2>/dev/null; then
        n=$((n + 1))
    else
        echo "skipped (no animation the peer can read): $rel" >&2
        rm -f "$out/collada/$label.json"
    fi
done < <(grep -rlZ --include='*.dae' --include='*.DAE' '<animation' "$data/collada" | sort -z)
echo "wrote $n COLLADA animation reference files to $out/collada"
