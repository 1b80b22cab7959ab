#!/usr/bin/env bash
# test_slurm (ctest label "slurm"): a single-node Slurm (contrib/slurm/local-cluster.sh:
# munged, slurmctld, slurmd on this machine, as root) runs the job array of
# contrib/slurm/submit.sh over a few short corpus clips onto the G1, and the
# merged report is compared with the same run in one process: equal but for
# timings, every motion byte-identical. Then what a killed part leaves (its
# summary gone, a clip's output written but not its report, another's report
# cut short, a temporary file) is resubmitted: the part resumes with
# --skip-existing, redoes those two clips and the merge is again the same.
# Last, check over the whole corpus in two parts against one process.
#
# Skipped (exit 77) without the corpus, root, or slurm-wlm and munge, or when the
# daemons cannot start (why is printed); the daemons it started are stopped.
#   test_slurm.sh KINEGRAPH SOURCE_DIR
set -uo pipefail
kg=$1
src=$2
contrib="$src/contrib/slurm"
skip() {
    echo "SKIPPED: test_slurm: $*"
    exit 77
}
fail() {
    echo "FAILED: test_slurm: $*"
    exit 1
}
data=${KINEGRAPH_DATA:-$src/../shared/data}
[ -d "$data" ] || skip "needs the shared corpus ($data absent; set KINEGRAPH_DATA)"
[ "$(id -u)" -eq 0 ] || skip "the single-node Slurm runs its daemons as root"
for c in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol; do
    command -v "$c" >/dev/null || skip "$c not found (apt-get install slurm-wlm munge; ./setup.sh test installs them)"
done
robot="$data/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf"
clips=()
for c in bandai_namco/dataset-1_dash_normal_001.bvh bandai_namco/dataset-1_run_normal_001.bvh \
    bandai_namco/dataset-1_walk-back_normal_001.bvh bandai_namco/dataset-2_raise-up-both-hands_active_001.bvh \
    bvh_python/test_freebvh.bvh bandai_namco/dataset-1_bow_angry_001.bvh bandai_namco/dataset-2_run_feminine_001.bvh; do
    clips+=("$data/bvh/$c")
done
for f in "$robot" "${clips[@]}"; do [ -f "$f" ] || skip "$f is not in the corpus"; done
# absolute paths, as submit.sh writes them: the reports name their clips
abs() { (cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"); }
robot=$(abs "$robot")
for i in "${!clips[@]}"; do clips[$i]=$(abs "${clips[$i]}"); done
kg=$(abs "$kg")

work=$(mktemp -d /tmp/kg-slurm-test.XXXXXX)
cleanup() {
    "$contrib/local-cluster.sh" stop "$work/cluster"
    if [ "${KG_KEEP_SLURM_TEST:-}" ]; then echo "test_slurm: left $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP # the daemons are stopped then too
SECONDS=0
if ! env=$("$contrib/local-cluster.sh" start "$work/cluster" 2>"$work/start.err"); then
    cat "$work/start.err"
    skip "the single-node Slurm could not start (above)"
fi
eval "$env" # SLURM_CONF
echo "test_slurm: Slurm up in $SECONDS s ($SLURM_CONF)"

# A finished job's exit code (Slurm keeps it MinJobAge = 300 s).
job_exit() { timeout 10 scontrol show job "$1" | grep -o ' ExitCode=[0-9]*' | head -1 | cut -d= -f2; }

# Waits for jobs (ids) to leave the queue, 240 s at most; 0 when all completed
# (with --any-exit, whatever their exit).
wait_jobs() {
    local any=""
    [ "$1" = --any-exit ] && any=1 && shift
    local ids=$1
    for _ in $(seq 480); do
        [ -z "$(timeout 10 squeue -h -j "${ids// /,}" 2>/dev/null)" ] && break
        sleep 0.5
    done
    [ -z "$(timeout 10 squeue -h -j "${ids// /,}" 2>/dev/null)" ] || { timeout 10 scancel ${ids}; fail "jobs $ids still queued after 240 s"; }
    local id
    for id in $ids; do
        local state
        state=$(timeout 10 scontrol show job "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
        [ "$any" ] || [ "$state" = "JobState=COMPLETED " ] || { echo "job $id: $state"; return 1; }
    done
}

# The retarget reports without their timings (one key a line, as written).
untimed() {
    sed -E 's/"(seconds|setup_seconds|robot_seconds|frames_per_second|frames_per_second_without_setup|solve_cpu_seconds|frames_per_cpu_second_without_setup)": [^,]*/"\1": T/' "$1"
}

# ---- retarget: one process, then the array of 3 parts and the merge ----
mkdir -p "$work/one"
"$kg" retarget "${clips[@]}" --robot "$robot" -o "$work/one/%s.csv" --report "$work/one/%s.json" --json \
    >"$work/one.json" 2>"$work/one.err" || { cat "$work/one.err"; fail "the one-process retarget failed"; }
t0=$SECONDS
ids=$("$contrib/submit.sh" retarget -n 3 -o "$work/array" --robot "$robot" --kinegraph "$kg" "${clips[@]}") ||
    fail "submit.sh failed"
wait_jobs "$ids" || { cat "$work/array/logs/"*; fail "the array or its merge did not complete"; }
frames=$(grep -h '"frames":' "$work/one.json" | grep -o '[0-9]*' | awk '{n += $1} END {print n}')
echo "test_slurm: 7 clips ($frames frames) in 3 parts and merged in $((SECONDS - t0)) s (Slurm's scheduling included)"
cat "$work/array/merge.txt"
diff <(untimed "$work/one.json") <(untimed "$work/array/merged.json") >"$work/diff" ||
    { head -40 "$work/diff"; fail "the merged report is not the one-process one"; }
for c in "${clips[@]}"; do
    n=$(basename "$c" .bvh)
    cmp "$work/one/$n.csv" "$work/array/motion/$n.csv" || fail "$n.csv differs from the one-process run's"
done
echo "test_slurm: merged report = one-process report (timings aside); 7 motions byte-identical"

# ---- a killed part: resubmitted, resumed, merged the same ----
# the part with the most clips; what SIGKILL leaves (every file is written to a
# temporary file and renamed): no summary, a clip whose output is there but not
# its report, and, as a file broken some other way, a report cut in half
part=$(for s in "$work/array/summaries/"*.json; do
    echo "$(grep -c '"report_file":' "$s") $(basename "$s")"
done | sort -rn | head -1 | sed -E 's/.*shard-([0-9]+)-of-.*/\1/')
summary="$work/array/summaries/shard-$part-of-3.json"
mapfile -t reports < <(grep -o '"report_file": "[^"]*"' "$summary" | sed -E 's/.*: "(.*)"/\1/')
[ ${#reports[@]} -ge 2 ] || fail "part $part has fewer than 2 clips"
rm "$summary" "${reports[0]}"
head -c 500 "${reports[1]}" >"$work/cut" && mv "$work/cut" "${reports[1]}"
echo partial >"${reports[0]%.json}.csv.tmp.99999"
"$kg" merge "$work/array/summaries/"*.json -o "$work/partial.json" >"$work/partial.txt"
[ $? -eq 1 ] || fail "merge with part $part missing did not exit 1"
grep -q "missing: the summary of part $part/3" "$work/partial.txt" || fail "merge did not name the missing part"
ids=$("$contrib/submit.sh" retarget -n 3 -o "$work/array" --robot "$robot" --kinegraph "$kg" --only "$part" \
    "${clips[@]}") || fail "submit.sh --only $part failed"
wait_jobs "$ids" || { cat "$work/array/logs/"*; fail "the resubmitted part or its merge did not complete"; }
log="$work/array/logs/shard-$part.out"
[ "$(grep -c 'redone, its result is not whole' "$log")" -eq 2 ] || { cat "$log"; fail "the two broken results were not redone"; }
[ "$(grep -c 'wrote ' "$log")" -eq 2 ] || { cat "$log"; fail "part $part retargeted other than the two broken clips"; }
[ "$(grep -c 'skipped ' "$log")" -eq $((${#reports[@]} - 2)) ] || { cat "$log"; fail "part $part did not skip its whole results"; }
diff <(untimed "$work/one.json") <(untimed "$work/array/merged.json") >"$work/diff" ||
    { head -40 "$work/diff"; fail "after the resume, the merged report is not the one-process one"; }
for c in "${clips[@]}"; do
    n=$(basename "$c" .bvh)
    cmp "$work/one/$n.csv" "$work/array/motion/$n.csv" || fail "$n.csv differs after the resume"
done
echo "test_slurm: part $part killed (summary gone, a report missing, one cut short): resumed, 2 clips redone, merge the same"

# ---- check over the whole corpus: 2 parts against one process ----
"$kg" check "$(abs "$data/urdf")" "$(abs "$data/bvh")" --jobs 1 --no-progress --json "$work/check.json" \
    --junit "$work/check.xml" --html "$work/check.html" >/dev/null
[ $? -le 1 ] || fail "the one-process check failed"
ids=$("$contrib/submit.sh" check -n 2 -o "$work/check" --kinegraph "$kg" "$(abs "$data/urdf")" "$(abs "$data/bvh")") ||
    fail "submit.sh check failed"
wait_jobs "${ids%% *}" || { cat "$work/check/logs/"*; fail "the check array did not complete"; }
wait_jobs --any-exit "${ids##* }"
# exit 1: the corpus has files with errors (said as failed), none missing
[ "$(job_exit "${ids##* }")" = 1 ] || { cat "$work/check/logs/"*; fail "the check merge's exit is not 1"; }
grep -q ' 0 missing$' "$work/check/merge.txt" || fail "the check merge says inputs are missing"
[ -s "$work/check/merged.json" ] || { cat "$work/check/logs/"*; fail "the check merge wrote nothing"; }
secs='s/"seconds": [^,]*/"seconds": T/'
diff <(sed -E "$secs" "$work/check.json") <(sed -E "$secs" "$work/check/merged.json") >"$work/diff" ||
    { head -40 "$work/diff"; fail "the merged check report is not the one-process one"; }
# the HTML's pictures of the models are check's own (merge has only the parts' results)
times='s/time="[0-9.]*"/time=T/g; s/; [0-9.]+ s\.<\/p>/; T s.<\/p>/; /^<figure>.*<\/figure>$/d'
for ext in xml html; do
    diff <(sed -E "$times" "$work/check.$ext") <(sed -E "$times" "$work/check/merged.$ext") >"$work/diff" ||
        { head -20 "$work/diff"; fail "the merged check $ext report is not the one-process one"; }
done
echo "test_slurm: check of $(grep -c '"path":' "$work/check.json") corpus files in 2 parts: JSON, JUnit and HTML = one process (timings aside)"
echo "test_slurm: passed in $SECONDS s"
