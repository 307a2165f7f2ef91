#!/usr/bin/env bash
# Usage: scripts/slurm/submit.sh CORPUS N STRATEGIES OUTDIR [BIN]
# Submits a sudoku-bench run of CORPUS split into N shards as a Slurm job array, then the
# merge of its parts as a job that starts only when every shard succeeded. Prints the two
# job ids (array, merge) on one line. Extra sbatch options (partition, account, time,
# --cpus-per-task) go in SBATCH_ARGS; extra `run` options in RUN_ARGS.
set -euo pipefail

if [ $# -lt 4 ] || [ $# -gt 5 ]; then
    echo "usage: $0 CORPUS N STRATEGIES OUTDIR [BIN]" >&2
    exit 2
fi
corpus=$1 n=$2 strategies=$3 out=$4
bin=${5:-${BIN:-sudoku-bench}}
here=$(cd "$(dirname "$0")" && pwd)

if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: N must be a positive whole number, not '$n'" >&2
    exit 2
fi
if [ ! -r "$corpus" ]; then
    echo "$0: cannot read corpus $corpus" >&2
    exit 2
fi
# The jobs run on other nodes and maybe in another directory: give them absolute paths.
if ! bin=$(command -v "$bin") || [ ! -x "$bin" ]; then
    echo "$0: no sudoku-bench binary '${5:-${BIN:-sudoku-bench}}' (give BIN, or put it on PATH)" >&2
    exit 2
fi
bin=$(realpath "$bin")
mkdir -p "$out/logs"
out=$(realpath "$out")
# Parts already there are continued (run --resume), not redone: right after a failed task,
# wrong for a different corpus or settings, which the tool then refuses. Parts of a split
# into another N are refused here, before anything is submitted: task K would continue a
# part K that holds other lines, and the merge would take parts beyond N.
shopt -s nullglob
parts=("$out"/part-*.csv)
for f in "$out"/part-*.csv "$out"/part-*.json; do
    k=${f##*/part-}
    k=${k%.*}
    if ! [[ $k =~ ^[1-9][0-9]{0,8}$ ]] || [ "$k" -gt "$n" ]; then
        echo "$0: $out holds $f, which is not a part of a split into $n: use another OUTDIR, or remove the parts of the earlier split" >&2
        exit 2
    fi
done
for f in "$out"/part-*.json; do
    # An empty summary is a killed task's: it says nothing, and its CSV is continued.
    [ -s "$f" ] || continue
    # The summary JSON has "shard": {"index": K, "count": N}.
    count=$(tr -d ' \t\r\n' <"$f" | sed -n 's/.*"shard":{"index":[0-9]*,"count":\([0-9]*\)}.*/\1/p')
    if [ "$count" != "$n" ]; then
        by="a split into $count"
        [ -n "$count" ] || by="a run with no --shard"
        echo "$0: $f was written by $by, not a split into $n: use another OUTDIR, or remove the parts of the earlier split" >&2
        exit 2
    fi
done
# A killed task leaves its summary empty, which says nothing of N: the split this OUTDIR was
# first submitted with is kept beside the parts, so that such parts are refused here too.
if [ -s "$out/split" ] && [ "$(cat "$out/split")" != "$n" ]; then
    echo "$0: $out holds the parts of a split into $(cat "$out/split") (its file 'split' says so), not $n: use another OUTDIR, or remove the parts of the earlier split and that file" >&2
    exit 2
fi
if [ ${#parts[@]} -gt 0 ]; then
    echo "$0: $out already holds ${#parts[@]} part(s); their tasks will continue them" >&2
fi
echo "$n" >"$out/split"

# Through the environment, not --export=VAR=...: sbatch splits --export on commas, and the
# strategies are a comma-separated list.
export CORPUS=$corpus STRATEGIES=$strategies OUT=$out BIN=$bin RUN_ARGS=${RUN_ARGS:-}
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options, split on purpose
array=$(sbatch --parsable --export=ALL --array="1-$n" ${SBATCH_ARGS:-} \
    --output="$out/logs/shard-%a.out" "$here/shard-array.sbatch")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --export=ALL --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    ${SBATCH_ARGS:-} --output="$out/logs/merge.out" "$here/merge.sbatch")
merge=${merge%%;*}
echo "$array $merge"
