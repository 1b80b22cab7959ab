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

#  tests/reference/jacobian/*.json  KDL's ChainJntToJacSolver for chains from the root
#                              to the tips below, at five joint vectors each (seed 20261122)
jgen=build/tests/kg_kdl_jacobian_reference
[ -x "$jgen" ] || { echo "build $jgen first (./setup.sh)" >&2; exit 1; }
mkdir -p "$out/jacobian"
rm -f "$out/jacobian"/*.json
n=0
jac() { # LABEL URDF TIP...
    local label=$1 urdf=$2
    shift 2
    [ -f "$data/$urdf" ] || return 0
    "$jgen" "$data/$urdf" "$urdf" 20261122 5 "$@" >"$out/jacobian/$label.json" && n=$((n + 1))
}
jac g1 urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf left_ankle_roll_link right_rubber_hand head_link
jac ur5 urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf tool0
jac iiwa7 urdf/kuka_iiwa7/differentiable-robot-model/diff_robot_data/kuka_iiwa/urdf/iiwa7.urdf iiwa_link_ee
jac panda urdf/panda/example-robot-data/robots/panda_description/urdf/panda.urdf panda_hand_tcp
jac talos urdf/talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf arm_left_7_link rgbd_optical_frame leg_right_6_link
jac pr2 urdf/pr2/example-robot-data/robots/pr2_description/urdf/pr2.urdf r_gripper_palm_link high_def_optical_frame
"$jgen" samples/humanoid.urdf "@source/samples/humanoid.urdf" 20261122 5 r_sole l_hand head >"$out/jacobian/sample_humanoid.json" && n=$((n + 1))
echo "wrote $n Jacobian reference files to $out/jacobian"

#  tests/reference/collision/*.json  MuJoCo's self-collisions (convex hulls, every pair
#                              allowed) at 200 random poses (seed 20261122)
mgen=build/tests/kg_mujoco_collision_reference
[ -x "$mgen" ] || { echo "build $mgen first (./setup.sh)" >&2; exit 1; }
mkdir -p "$out/collision"
rm -f "$out/collision"/*.json
g1="urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf"
[ -f "$data/$g1" ] && "$mgen" "$data/$g1" "$g1" 20261122 200 >"$out/collision/g1.json"
"$mgen" samples/humanoid.urdf "@source/samples/humanoid.urdf" 20261122 200 >"$out/collision/sample_humanoid.json"
echo "wrote $(ls "$out/collision" | wc -l) collision reference files to $out/collision"

#  tests/reference/mass/*.json  MuJoCo's mass properties of the collision geometry at
#                              1000 kg/m^3 (inertiafromgeom, exactmeshinertia)
sgen=build/tests/kg_mujoco_mass_reference
[ -x "$sgen" ] || { echo "build $sgen first (./setup.sh)" >&2; exit 1; }
mkdir -p "$out/mass"
rm -f "$out/mass"/*.json
mass() { # LABEL URDF
    [ -f "$data/$2" ] && "$sgen" "$data/$2" "$2" >"$out/mass/$1.json"
    return 0
}
mass g1 urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf
mass kr5 "urdf/kuka_kr5/KR5 sixx R650.urdf"
mass anymal urdf/anymal_c/example-robot-data/robots/anymal_c_simple_description/urdf/anymal.urdf
mass go1 urdf/go1/example-robot-data/robots/go1_description/urdf/go1.urdf
"$sgen" samples/humanoid.urdf "@source/samples/humanoid.urdf" >"$out/mass/sample_humanoid.json"
echo "wrote $(ls "$out/mass" | wc -l) mass reference files to $out/mass"

#  tests/reference/distance/  distances between convex hulls, cvxopt's QP polished on its active
#                              points (tests/peers/distance_reference.py): random point clouds at
#                              random poses (clouds.txt), and G1 link pairs whose world hull vertices
#                              test_collision exports at its random poses (g1.txt)
mkdir -p "$out/distance"
/usr/bin/python3 tests/peers/distance_reference.py clouds "$out/distance/clouds.txt"
if [ -f "$data/$g1" ]; then
    hulls=$(mktemp)
    KG_DISTANCE_EXPORT="$hulls" KINEGRAPH_DATA="$data" build/tests/test_collision >/dev/null 2>&1 || true
    /usr/bin/python3 tests/peers/distance_reference.py export "$hulls" "$out/distance/g1.txt"
    rm -f "$hulls"
fi
mkdir -p "$out/qp" && /usr/bin/python3 tests/peers/qp_reference.py >"$out/qp/random.json" && echo "wrote random QPs and cvxopt's solutions to $out/qp/random.json" # Debian python3-cvxopt, not another python3

#  tests/reference/dynamics_kdl/*.json  KDL's ChainIdSolver_RNE torques and ChainDynParam mass
#                              matrices for chains from the root to the tips below, at five random
#                              (q, qdot, qddot) each (seed 20261122), gravity (0, 0, -9.81), and
#                              ChainFdSolver_RNE's accelerations at (q, qdot) under those torques
#                              and under random torques (seed 20261123)
dgen=build/tests/kg_kdl_dynamics_reference
[ -x "$dgen" ] || { echo "build $dgen first (./setup.sh)" >&2; exit 1; }
mkdir -p "$out/dynamics_kdl"
rm -f "$out/dynamics_kdl"/*.json
n=0
dyn() { # LABEL URDF TIP...
    local label=$1 urdf=$2
    shift 2
    [ -f "$data/$urdf" ] || return 0
    "$dgen" "$data/$urdf" "$urdf" 20261122 5 "$@" >"$out/dynamics_kdl/$label.json" 2>/dev/null && n=$((n + 1))
}
dyn g1 urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf left_ankle_roll_link right_rubber_hand
dyn ur5 urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf tool0
dyn iiwa7 urdf/kuka_iiwa7/differentiable-robot-model/diff_robot_data/kuka_iiwa/urdf/iiwa7.urdf iiwa_link_ee
dyn panda urdf/panda/example-robot-data/robots/panda_description/urdf/panda.urdf panda_hand_tcp
dyn talos urdf/talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf arm_left_7_link leg_right_6_link
echo "wrote $n KDL dynamics reference files to $out/dynamics_kdl"
