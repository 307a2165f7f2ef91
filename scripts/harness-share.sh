#!/usr/bin/env bash
# How much of the solver's speed survives the whole harness (issue 5's 80% target).
#
#   scripts/harness-share.sh [CORPUS] [RUNS]
#
# 1. Pure solver throughput: `run -s fast --threads 1`, CSV to /dev/null; the summary's
#    per-core puzzles/s (summed solve time only), best of RUNS.
# 2. Whole run: `run -s fast --threads 2` writing the per-puzzle CSV to a new file (as the
#    default results/run-<time>.csv is), each run its own; the
#    summary's wall time of the whole run (read, parse, solve, time, check, write), median
#    of RUNS.
# Share = whole-run puzzles/s / (2 x pure per-core puzzles/s). All figures are the tool's
# own summaries; the machine is named from them.
set -euo pipefail
cd "$(dirname "$0")/.."

CORPUS=${1:-../shared/datasets/puzzles2_17_clue}
RUNS=${2:-7}
THREADS=2

cargo build --release --locked --quiet
bin="${CARGO_TARGET_DIR:-target}/release/sudoku-bench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for i in $(seq "$RUNS"); do
    "$bin" run "$CORPUS" -s fast --threads 1 -q --out /dev/null --summary "$work/pure-$i.json"
done
for i in $(seq "$RUNS"); do
    "$bin" run "$CORPUS" -s fast --threads "$THREADS" -q --out "$work/out-$i.csv" \
        --summary "$work/whole-$i.json"
    rm "$work/out-$i.csv"
done

python3 - "$work" "$RUNS" "$THREADS" <<'EOF'
import json, statistics, sys
work, runs, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
load = lambda name: json.load(open(f"{work}/{name}.json"))
pure = [load(f"pure-{i}") for i in range(1, runs + 1)]
whole = [load(f"whole-{i}") for i in range(1, runs + 1)]
per_core = max(d["rows"][0]["puzzles_per_s_per_core"] for d in pure)
puzzles = whole[0]["rows"][0]["puzzles"]
walls = sorted(d["wall_ns"] for d in whole)
median = statistics.median(walls)
rate = puzzles / (median / 1e9)
m = whole[0]["machine"]
print(f"machine: {m['cpu']}, {m['cores']} cores")
print(f"corpus: {whole[0]['rows'][0]['corpus']} ({puzzles} puzzles)")
print(f"pure solver, 1 thread: {per_core:,.0f} puzzles/s (best of {runs})")
print(f"whole run, {threads} threads: {median / 1e6:.1f} ms median "
      f"(min {walls[0] / 1e6:.1f}, max {walls[-1] / 1e6:.1f}), {rate:,.0f} puzzles/s")
print(f"share of {threads} x pure: {rate / (threads * per_core):.1%}")
EOF
