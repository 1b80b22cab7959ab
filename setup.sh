#!/usr/bin/env bash
# kinegraph set-up: installs the Debian packages the build needs (apt-get, only
# those missing; idempotent), configures and builds into build/, then does what
# was asked:
#   ./setup.sh           install what the library and the command need, and build them
#   ./setup.sh demo      ... and run the main job on the built-in sample (samples/)
#   (the modes below also install the test peers and build the tests and peer programs)
#   ./setup.sh test      ... and run every test (ctest, all labels; the libFuzzer harnesses
#                        are built with clang in build-fuzz/ and run 60 s each: label fuzz)
#   ./setup.sh bench     ... and run the benchmarks (results in build/bench/*.json; also installs
#                        what bench/retarget_matrix.sh's checker needs: python3-numpy, python3-pykdl)
#   ./setup.sh package   ... and make the .deb (cpack; build/kinegraph_VERSION_ARCH.deb)
#   ./setup.sh references  regenerate tests/reference/ from the peer tools
#   ./setup.sh fuzz [SECONDS]  build the libFuzzer harnesses (fuzz/, clang) in build-fuzz/ and run
#                        each for SECONDS (default 60); exit 1 on a finding
set -euo pipefail
cd "$(dirname "$0")"

# What the library and the command need: libxml2, libzip (.zae), OpenBLAS + LAPACKE,
# jansson, assimp (meshes), zlib (PNG), libccd and qhull (collision), cairo (pictures
# with text: filmstrips, model pictures). `./setup.sh` and `./setup.sh demo` install only these.
PACKAGES=(build-essential cmake pkg-config libxml2-dev libjansson-dev libassimp-dev libzip-dev
          libopenblas-dev liblapacke-dev zlib1g-dev libccd-dev libqhull-dev libcairo2-dev)
# What the tests, references and benchmarks need besides: cmocka, and the peers they are
# checked against: KDL with kdl_parser and urdfdom, MuJoCo, check_urdf, assimp,
# collada_urdf (urdf_to_collada, collada_to_urdf), opencolladavalidator.
PEER_PACKAGES=(libcmocka-dev liborocos-kdl-dev libkdl-parser-dev liburdfdom-dev liburdfdom-tools libeigen3-dev
               libmujoco-dev collada-urdf-tools opencollada-tools assimp-utils)
# Test-only, optional (./setup.sh test): a single-node Slurm for test_slurm (label
# slurm; contrib/slurm/local-cluster.sh starts munged, slurmctld and slurmd),
# headless Chromium for test_view (kinegraph view's pages), and zsh for
# test_cli_docs (the zsh completion, completed for real).
TEST_PACKAGES=(slurm-wlm munge chromium zsh)
# What the retargeting matrix's independent checker needs (bench/retarget_matrix.sh runs
# ../shared/tools/retarget_quality.py under /usr/bin/python3; assimp's command line turns COLLADA
# meshes into OBJ for it, bench/checker_meshes.py): ./setup.sh bench installs them.
BENCH_PACKAGES=(python3-numpy python3-pykdl assimp-utils)
# The libFuzzer harnesses (fuzz/): clang and its runtime libraries (libFuzzer); only
# build-fuzz/ uses them, the normal build uses gcc.
FUZZ_PACKAGES=(clang libclang-rt-14-dev)
install_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# build ON|OFF: with the tests and the peer programs, or without (the demo's)
build() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKG_TESTS="$1" -DKG_PEERS="$1" >/dev/null
    cmake --build build -j"$(nproc)"
}

# The harnesses, in build-fuzz/ (the library again, with coverage, ASan and UBSan).
build_fuzz() {
    install_packages "${FUZZ_PACKAGES[@]}" || return 1
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKG_FUZZ=ON -DKG_PEERS=OFF \
        -DKG_TESTS=OFF >/dev/null || return 1
    cmake --build build-fuzz -j"$(nproc)" --target fuzz_urdf fuzz_collada fuzz_zae fuzz_bvh fuzz_export fuzz_map fuzz_retarget
}

install_packages "${PACKAGES[@]}"
case "${1:-}" in
"" | demo | package) build OFF ;;
*) install_packages "${PEER_PACKAGES[@]}" && build ON ;;
esac

case "${1:-}" in
"") ;;
demo)
    set -x
    build/kinegraph info samples/humanoid.urdf
    build/kinegraph fk samples/humanoid.urdf --base 0,0,0.65 \
        --q '{"r_hip_pitch": -0.4363, "r_knee": 0.8727, "r_ankle_pitch": -0.4363, "l_shoulder_pitch": -0.5}'
    build/kinegraph mass samples/humanoid.urdf --base 0,0,0.65 --json
    build/kinegraph info samples/walk.bvh
    build/kinegraph fk samples/walk.bvh --frame 15
    build/kinegraph convert samples/walk.bvh build/walk.csv
    head -c 400 build/walk.csv
    build/kinegraph convert samples/humanoid.urdf build/humanoid.dae --ledger build/humanoid_ledger.json
    build/kinegraph convert samples/walk.bvh build/walk.dae
    build/kinegraph info build/walk.dae
    build/kinegraph jacobian samples/humanoid.urdf --tip r_hand --base torso \
        --q '{"r_shoulder_pitch": -0.6, "r_elbow": -1.2}'
    build/kinegraph workspace samples/humanoid.urdf --tip r_hand --base torso --samples 200000 \
        --voxel 0.03 --svg build/r_hand_workspace.svg --ply build/r_hand_workspace.ply
    build/kinegraph collisions samples/humanoid.urdf --samples 100000 --srdf build/humanoid.srdf
    build/kinegraph mass samples/humanoid.urdf --from-geometry
    build/kinegraph retarget samples/walk.bvh --robot samples/humanoid.urdf -o build/walk_humanoid.csv \
        --report build/walk_humanoid_report.json
    build/kinegraph retarget samples/walk.bvh --robot samples/humanoid.urdf -o build/walk_humanoid.dae
    build/kinegraph view samples/humanoid.urdf build/walk_humanoid.csv build/walk_humanoid_report.json \
        -o build/walk_humanoid.html || [ $? -eq 3 ]  # 3: a build without three.js (said on stderr)
    build/kinegraph check samples --html build/check.html --junit build/check.xml --json build/check.json
    ;;
test)
    # test-only peer: the Khronos glTF validator (npm), for test_gltf; without npm or the
    # registry the test says so and skips that check
    if command -v npm >/dev/null && [ ! -d build/npm/node_modules/gltf-validator ]; then
        npm install --silent --no-audit --no-fund --prefix build/npm gltf-validator >/dev/null 2>&1 ||
            echo "setup: npm could not install gltf-validator; test_gltf will skip the validator"
    fi
    # test-only Debian packages: without them (no registry) test_slurm says so and skips
    install_packages "${TEST_PACKAGES[@]}" || echo "setup: could not install ${TEST_PACKAGES[*]}; test_slurm, test_view and the zsh part of test_cli_docs will skip"
    build_fuzz || echo "setup: could not build the libFuzzer harnesses (clang); the fuzz tests will skip"
    ctest --test-dir build --output-on-failure -j"$(nproc)"
    ;;
bench)
    install_packages "${BENCH_PACKAGES[@]}" || echo "setup: could not install ${BENCH_PACKAGES[*]}; bench/retarget_matrix.sh will say so"
    build/bench/run_benchmarks.sh
    ;;
package)
    # dpkg-shlibdeps (dpkg-dev, from build-essential) fills in the package's Depends
    (cd build && cpack)
    ;;
references)
    tests/peers/make_references.sh
    ;;
fuzz)
    build_fuzz
    fuzz/run.sh build-fuzz "${2:-60}"
    ;;
*)
    echo "usage: $0 [demo|test|bench|package|references|fuzz [SECONDS]]" >&2
    exit 2
    ;;
esac
