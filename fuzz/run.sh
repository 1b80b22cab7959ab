#!/usr/bin/env bash
# Runs each libFuzzer harness for SECONDS (default 60): fuzz/run.sh BUILD_DIR [SECONDS [NAME...]]
# (NAME: urdf collada zae bvh export map retarget; default all). Seeds: samples/, the shared corpus
# (../shared/data or $KINEGRAPH_DATA, files up to 64 KB), fuzz/seeds/NAME/ (what neither has:
# a retarget map) and tests/data/fuzz-regressions/NAME/.
# New inputs go to BUILD_DIR/corpus/NAME, findings to BUILD_DIR/artifacts/NAME/ (copy them
# to tests/data/fuzz-regressions/NAME/ so ctest runs them). Exit 1 when any harness found
# something, 77 (ctest's skip) when a harness asked for is not built.
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:?build dir}"
seconds="${2:-60}"
shift $(($# < 2 ? $# : 2))
data="${KINEGRAPH_DATA:-../shared/data}"

# name  dictionary  file patterns for seeds
harnesses=(
    "urdf urdf.dict *.urdf"
    "collada collada.dict *.dae"
    "zae collada.dict *.zae"
    "bvh bvh.dict *.bvh"
    "export urdf.dict *.urdf,*.dae,*.bvh"
    "map map.dict *.json"
    "retarget bvh.dict *.bvh"
)

seed() { # NAME PATTERNS (comma-separated): copies small seed files into BUILD/seeds/NAME
    local dir="$build/seeds/$1" p pats
    IFS=, read -ra pats <<<"$2"
    mkdir -p "$dir"
    for root in samples "$data" "fuzz/seeds/$1" "tests/data/fuzz-regressions/$1"; do
        [ -d "$root" ] || continue
        for p in "${pats[@]}"; do
            find "$root" -type f -name "$p" -size -64k -print0 2>/dev/null |
                while IFS= read -r -d '' f; do cp -f "$f" "$dir/$(printf '%s' "$f" | md5sum | cut -c1-16)"; done
        done
    done
    # regressions are seeds whatever their size or name
    [ -d "tests/data/fuzz-regressions/$1" ] && cp -f "tests/data/fuzz-regressions/$1"/* "$dir/" 2>/dev/null
    return 0
}

wanted=" $* "
status=0
summary=()
for h in "${harnesses[@]}"; do
    read -r name dict pattern <<<"$h"
    [ $# -eq 0 ] || [[ "$wanted" == *" $name "* ]] || continue
    if [ ! -x "$build/fuzz/fuzz_$name" ]; then
        echo "SKIPPED: $build/fuzz/fuzz_$name is not built (./setup.sh test or ./setup.sh fuzz builds it with clang)"
        exit 77
    fi
    seed "$name" "$pattern"
    mkdir -p "$build/corpus/$name" "$build/artifacts/$name"
    log="$build/fuzz-$name.log"
    ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -dict="fuzz/$dict" -artifact_prefix="$build/artifacts/$name/" -print_final_stats=1 \
        "$build/corpus/$name" "$build/seeds/$name" >"$log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(( ${runs:-0} / (seconds > 0 ? seconds : 1) ))
    if [ $rc -ne 0 ]; then
        status=1
        summary+=("fuzz_$name: FINDING (exit $rc) after ${runs:-?} runs; see $log and $build/artifacts/$name/")
        grep -m1 -A12 "ERROR: \|==ERROR\|runtime error" "$log" >&2
    else
        summary+=("fuzz_$name: ${runs:-?} runs in ${seconds} s (~$rate/s), nothing found")
    fi
    # what a harness says of itself at the end (fuzz_export: the models its caps left unwritten)
    own=$(grep "^fuzz_$name: " "$log" | tail -1)
    [ -n "$own" ] && summary+=("  $own")
done
printf '%s\n' "${summary[@]}"
exit $status
