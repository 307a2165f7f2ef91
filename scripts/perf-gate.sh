#!/usr/bin/env bash
# Performance gate: a short benchmark over a fixed small corpus, compared with the committed
# baseline results/baseline.csv. Node counts must match exactly (they are deterministic);
# time may not be slower than the threshold, measured relative to a reference strategy so
# that the speed of the machine cancels.
#
#   scripts/perf-gate.sh            run the gate (exit 0 pass, 1 regression, 2 error)
#   scripts/perf-gate.sh --refresh  rewrite results/baseline.csv (after adding a strategy,
#                                   or after an intended change of search or speed)
#
# Timing on shared runners is noisy, so: each solve is timed REPEAT times and the fastest
# kept; the threshold is generous; and a time regression must show in every one of up to
# ATTEMPTS fresh runs before the gate fails. A change of node counts fails at once: no
# amount of re-running changes a deterministic count.
set -euo pipefail
cd "$(dirname "$0")/.."

THRESHOLD=${PERF_GATE_THRESHOLD:-50%}
REFERENCE=${PERF_GATE_REFERENCE:-dlx}
ATTEMPTS=${PERF_GATE_ATTEMPTS:-3}
REPEAT=3
# The slow strategies give up after this many nodes; the count stays deterministic.
MAX_NODES=20000
TOP1465=../shared/datasets/puzzles3_magictour_top1465
# The first 100 puzzles of top1465 (plus its two comment lines), cut to a fixed path so the
# corpus column of the CSV is the same on every machine. target/ is ignored by git.
SLICE=target/perf-gate/top1465-head100.txt
BASELINE=results/baseline.csv

refresh=0
case "${1:-}" in
    --refresh) refresh=1 ;;
    "") ;;
    *) echo "usage: $0 [--refresh]" >&2; exit 2 ;;
esac

cargo build --release --locked --quiet
bin="${CARGO_TARGET_DIR:-target}/release/sudoku-bench"

corpora=(datasets/classic.txt)
mkdir -p target/perf-gate
if [ -f "$TOP1465" ]; then
    head -n 102 "$TOP1465" >"$SLICE"
    corpora+=("$SLICE")
else
    echo "perf-gate: $TOP1465 not found; classic.txt only (the rest is reported as unpaired)" >&2
fi

bench() {
    "$bin" run "${corpora[@]}" --strategies all --max-nodes "$MAX_NODES" --timeout 0 \
        --repeat "$REPEAT" --threads 2 --quiet --strict --out "$1"
}

if [ "$refresh" = 1 ]; then
    bench "$BASELINE"
    echo "perf-gate: wrote $BASELINE; review and commit it" >&2
    exit 0
fi

if [ ! -f "$BASELINE" ]; then
    echo "perf-gate: no $BASELINE; make one with $0 --refresh" >&2
    exit 2
fi

current=target/perf-gate/current.csv
for attempt in $(seq 1 "$ATTEMPTS"); do
    bench "$current"
    status=0
    "$bin" compare "$BASELINE" "$current" --threshold "$THRESHOLD" \
        --relative-to "$REFERENCE" || status=$?
    case $status in
        0) echo "perf-gate: pass (attempt $attempt)"; exit 0 ;;
        1) ;;
        *) exit "$status" ;;
    esac
    # Exit 1 is a time regression or a search change. Only the first is worth re-running.
    if ! "$bin" compare "$BASELINE" "$current" --threshold "$THRESHOLD" \
        --relative-to "$REFERENCE" --allow-search-changes >/dev/null; then
        echo "perf-gate: slower than the baseline in attempt $attempt of $ATTEMPTS" >&2
    else
        echo "perf-gate: node counts differ from $BASELINE: the search changed." >&2
        echo "perf-gate: if that is intended, run $0 --refresh and commit the baseline." >&2
        exit 1
    fi
done
echo "perf-gate: slower in all $ATTEMPTS attempts" >&2
exit 1
