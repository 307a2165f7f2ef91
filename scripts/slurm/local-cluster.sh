#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (Debian's slurmctld, slurmd and munge, run
# without systemd), submits submit.sh's array over a corpus in N=4 shards with its merge, and
# checks the merged result against a single-process run of the same corpus:
#   - shard 1 was started once outside Slurm and cut as if killed: its task resumes it;
#   - the merged CSV equals the single CSV row for row on every column but time_ns and
#     replicate;
#   - the merged summary's counts (statuses, nodes, guesses) equal the single summary's.
# Needs root (it installs the packages when missing and runs the daemons). Stops every daemon
# it started and removes its temp directory on exit. Exits non-zero on any difference.
# Environment: BIN (a sudoku-bench binary; default: cargo build --release), CORPUS (default:
# ../shared/datasets/puzzles3_magictour_top1465, else datasets/minimal.txt), SHARDS (4),
# STRATEGIES (fast,dlx), KEEP=1 keeps the temp directory for a look afterwards.
set -euo pipefail
start=$(date +%s)
# Paths the caller gave are relative to where it stands, not to the repository.
[ -n "${BIN:-}" ] && BIN=$(realpath "$BIN")
[ -n "${CORPUS:-}" ] && CORPUS=$(realpath "$CORPUS")
cd "$(dirname "$0")/../.."
root=$(pwd)

if [ "$(id -u)" -ne 0 ]; then
    echo "local-cluster: run as root (it installs slurm and runs its daemons)" >&2
    exit 2
fi

shards=${SHARDS:-4}
strategies=${STRATEGIES:-fast,dlx}
corpus=${CORPUS:-}
if [ -z "$corpus" ]; then
    corpus=../shared/datasets/puzzles3_magictour_top1465
    if [ ! -r "$corpus" ]; then
        echo "local-cluster: $corpus absent, using datasets/minimal.txt"
        corpus=datasets/minimal.txt
    fi
fi
# One spelling for both runs: the CSV's corpus column is the path as given.
corpus=$(realpath "$corpus")

if [ -z "${BIN:-}" ]; then
    echo "== cargo build --release"
    cargo build --release --locked --quiet
    BIN=$root/target/release/sudoku-bench
fi

CLUSTER_DIR=$(mktemp -d /tmp/sudoku-slurm.XXXXXX)
# The jobs run as root too, but keep the tree readable like a shared filesystem would be.
chmod 755 "$CLUSTER_DIR"
# shellcheck source=scripts/slurm/cluster-lib.sh
source scripts/slurm/cluster-lib.sh
finish() {
    local rc=$?
    cluster_stop
    if [ $rc -ne 0 ] && [ -d "$CLUSTER_DIR/log" ]; then
        echo "local-cluster: failed; the last daemon and job log lines:" >&2
        tail -n 15 "$CLUSTER_DIR"/log/* "$CLUSTER_DIR"/out/logs/* >&2 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "local-cluster: kept $CLUSTER_DIR"
    else
        rm -rf "$CLUSTER_DIR"
    fi
    echo "local-cluster: $( [ $rc -eq 0 ] && echo passed || echo FAILED ) in $(($(date +%s) - start)) s"
}
trap finish EXIT
trap 'exit 130' INT TERM

cluster_install
cluster_write_config
cluster_start

out=$CLUSTER_DIR/out
mkdir -p "$out/logs"
# A first attempt of task 1 that was killed (pre-empted, node lost): run it outside Slurm, then
# leave its CSV as a SIGKILL would, half the rows and the last one cut mid-line, with no
# summary. The array's task 1 must find this part and continue it with run --resume.
echo "== a killed first attempt of shard 1/$shards"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=$shards \
    SLURM_ARRAY_TASK_COUNT=$shards SLURM_CPUS_ON_NODE=1 \
    CORPUS=$corpus STRATEGIES=$strategies OUT=$out BIN=$BIN \
    bash scripts/slurm/shard-array.sbatch 2>"$out/logs/attempt-1.out"
part=$out/part-1.csv
kept=$((($(wc -l <"$part") - 1) / 2))
if [ "$kept" -lt 1 ]; then
    echo "local-cluster: shard 1/$shards of $corpus has too few rows to cut" >&2
    exit 1
fi
{
    head -n $((kept + 1)) "$part"
    sed -n "$((kept + 2))p" "$part" | head -c 20
} >"$part.cut"
mv "$part.cut" "$part"
rm -f "$out/part-1.json"

echo "== submit.sh $corpus $shards $strategies"
read -r array merge < <(scripts/slurm/submit.sh "$corpus" "$shards" "$strategies" "$out" "$BIN")
echo "array job $array, merge job $merge"
wait_job "$array" 240
wait_job "$merge" 60
for f in all.csv all.json; do
    if [ ! -s "$out/$f" ]; then
        echo "local-cluster: the merge job finished but wrote no $out/$f" >&2
        exit 1
    fi
done

# The resumed task kept whole rows of the first attempt and did not redo them.
python3 - "$out/part-1.json" "$kept" <<'PY'
import json, sys
resumed = json.load(open(sys.argv[1])).get("resumed_rows")
kept = int(sys.argv[2])
if not resumed or resumed > kept:
    sys.exit(f"local-cluster: shard 1 did not resume its {kept} whole rows: resumed_rows {resumed}")
print(f"shard 1 resumed: {resumed} of the first attempt's {kept} whole rows kept")
PY

echo "== single run"
"$BIN" run "$corpus" -s "$strategies" -q -o "$CLUSTER_DIR/single.csv" --summary "$CLUSTER_DIR/single.json"

echo "== compare"
python3 scripts/slurm/same-result.py "$CLUSTER_DIR/single.csv" "$out/all.csv" \
    "$CLUSTER_DIR/single.json" "$out/all.json"
