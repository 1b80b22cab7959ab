#!/usr/bin/env bash
# Submits a kinegraph batch to Slurm: a job array of N parts (one task per part,
# kinegraph-shard.sbatch) and a merge job that waits for them
# (kinegraph-merge.sbatch). Prints the two job ids, "ARRAY MERGE".
#
#   submit.sh retarget -n N -o OUTDIR --robot MODEL [options] CLIP...
#   submit.sh check    -n N -o OUTDIR [options] PATH...
#
# options:
#   -n N            parts (array tasks); see README.md for sizing
#   -o OUTDIR       where everything goes (on a file system every node sees):
#                   inputs.txt, job.env, motion/ reports/ (retarget), results/
#                   (check), summaries/, logs/, merged.json, merged.xml, merged.html
#   --robot MODEL   the robot (retarget)
#   --format EXT    the motion's format (retarget; default csv)
#   --cpus C        cores per task, used as --jobs (default 1)
#   --max-running M at most M tasks at once (--array=1-N%M)
#   --kinegraph P   the kinegraph binary (default: the one on PATH)
#   --extra "OPTS"  more options for every part (e.g. "--no-avoidance" or "--no-meshes")
#   --sbatch "OPTS" more options for sbatch (partition, account, time limit...)
#   --only K,K,...  submit only these parts (resume: the others are done), and the merge
#
# Resume: submit the same command again (or --only the parts that failed):
# every part runs with --skip-existing, so inputs whose results are whole are
# read back, and the merge runs again. Inputs are the same list (inputs.txt is
# rewritten from the arguments; the plan depends only on the set of inputs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command=${1:-}
case "$command" in
retarget | check) shift ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
n="" out="" robot="" format=csv cpus=1 max="" kinegraph=$(command -v kinegraph || true) extra="" sbatch_opts="" only=""
inputs=()
while [ $# -gt 0 ]; do
    case "$1" in
    -n) n=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --robot) robot=$2; shift 2 ;;
    --format) format=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --max-running) max=$2; shift 2 ;;
    --kinegraph) kinegraph=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    --sbatch) sbatch_opts=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --) shift; inputs+=("$@"); break ;;
    -*) echo "submit.sh: unknown option $1" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
    esac
done
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: -n N (parts) is required" >&2; exit 2; }
[ -n "$out" ] || { echo "submit.sh: -o OUTDIR is required" >&2; exit 2; }
[ ${#inputs[@]} -gt 0 ] || { echo "submit.sh: no inputs" >&2; exit 2; }
[ "$command" = check ] || [ -n "$robot" ] || { echo "submit.sh: retarget needs --robot" >&2; exit 2; }
[ -x "$kinegraph" ] || { echo "submit.sh: no kinegraph binary (--kinegraph PATH)" >&2; exit 2; }
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
# absolute paths: the tasks may start in another directory
: >"$out/inputs.txt.new"
for p in "${inputs[@]}"; do abs "$p" >>"$out/inputs.txt.new"; done
mv "$out/inputs.txt.new" "$out/inputs.txt"
{
    echo "KG_COMMAND=$command"
    echo "KG_SHARDS=$n"
    printf 'KG_OUT=%q\n' "$out"
    printf 'KG_KINEGRAPH=%q\n' "$(abs "$kinegraph")"
    printf 'KG_ROBOT=%q\n' "${robot:+$(abs "$robot")}"
    printf 'KG_FORMAT=%q\n' "$format"
    printf 'KG_EXTRA=%q\n' "$extra"
} >"$out/job.env"
array=${only:-1-$n}
# shellcheck disable=SC2086 # sbatch_opts: options, split on purpose
jid=$(sbatch --parsable --array="$array${max:+%$max}" --cpus-per-task="$cpus" \
    --output="$out/logs/shard-%a.out" --export=ALL,KG_JOB="$out/job.env" $sbatch_opts "$here/kinegraph-shard.sbatch")
jid=${jid%%;*}
# shellcheck disable=SC2086
mid=$(sbatch --parsable --dependency=afterany:"$jid" --output="$out/logs/merge.out" \
    --export=ALL,KG_JOB="$out/job.env" $sbatch_opts "$here/kinegraph-merge.sbatch")
echo "$jid ${mid%%;*}"
