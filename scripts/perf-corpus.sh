# Sourced by scripts/perf-gate.sh and scripts/history-backfill.sh: the corpus whose time both
# measure. One choice for both, cut to one path: a corpus keeps one name in the history, so
# the runs the gate records and those a backfill records make one series.

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
