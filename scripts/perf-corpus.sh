# Sourced by scripts/perf-gate.sh and scripts/history-backfill.sh: the corpus whose time both
# measure, and how they time it. One choice for both, cut to one path: a corpus keeps one
# name in the history, so the runs the gate records and those a backfill records make one
# series, timed alike.

# shellcheck shell=bash disable=SC2034 # REPEAT and CHUNK are for the scripts that source this
TOP1465=${PERF_GATE_TOP1465:-../shared/datasets/puzzles3_magictour_top1465}

# `timed_corpus DIR`: the corpus to time, on stdout (relative to the repository when it lies
# in it): the first 1,000 puzzles of $TOP1465, cut to DIR/top1465-head1000.txt (hard
# puzzles, each a search long enough to time well, and enough of them for 8 replicates of
# about 125 puzzles each), or without it the 1,000 generated puzzles of datasets/minimal.txt.
timed_corpus() {
    if [ ! -f "$TOP1465" ]; then
        echo datasets/minimal.txt
        return
    fi
    local slice=$1/top1465-head1000.txt
    mkdir -p "$1"
    # Through a file of its own: a gate and a backfill may cut it at once.
    awk '!/^#/ { print; if (++n == 1000) exit }' "$TOP1465" >"$slice.$$"
    mv "$slice.$$" "$slice"
    echo "${slice#"$PWD"/}"
}

# Each solve is timed this many times and the fastest kept: a solve hit by a preemption
# is retimed rather than believed.
REPEAT=5
# Records per chunk of the timed run. The phases alternate chunk by chunk, and a stretch of
# slower machine that falls on one build's phase sways the interval: small chunks make
# short phases and many of them. Each chunk of 4 is one replicate's (`run --replicates`),
# in turn: each of the 8 replicates gets 31 or so chunks (120 to 128 of the 1,000
# puzzles), in both phase orders, and its ratio averages over them. At 128 (8 chunks, each
# two runs of 64 for two replicates) each replicate got 2, and the intervals were twice as
# wide: a 10% slowdown read `slower, not past threshold` in 5 of 40 comparisons
# (docs/measurements.md, "The gate's phases").
CHUNK=4
