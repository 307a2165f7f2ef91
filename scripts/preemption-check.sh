#!/usr/bin/env bash
# Does `run` warn that other work held its workers off their cores when it should, and only
# then? Runs the quick start's command (`run`: every strategy over the built-in corpus) as
# it is, at the highest priority (nice -20 in a session of its own whose autogroup is at
# -20 too: with autogroups, nice alone does not weigh against other sessions' work), and
# beside one spinning process pinned to each core. For each case it prints the load
# average before it, each strategy's puzzles held off (the summary's `preemptions`) and
# the warnings about it. On an idle machine the first two should say nothing; on a busy
# one the first says so, rightly, and the second much less; the third should warn.
#
#   scripts/preemption-check.sh [BIN] [-- RUN_ARGS...]
#
# BIN defaults to target/release/sudoku-bench (`cargo build --release` first); RUN_ARGS
# replace the quick start's (none), e.g. `-- -s naive,stack,dlx,fast`.
set -euo pipefail

bin=target/release/sudoku-bench
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    bin=$1
    shift
fi
[ "${1:-}" = "--" ] && shift
run_args=("$@")
[ -x "$bin" ] || { echo "preemption-check: no $bin (cargo build --release)" >&2; exit 2; }

out=$(mktemp -d)
spinners=()
stop_spinners() {
    for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
    spinners=()
}
trap 'stop_spinners; rm -rf "$out"' EXIT

one_case() {
    local name=$1
    shift
    echo "== $name: load average $(cut -d' ' -f1-3 /proc/loadavg) before"
    local status=0
    "$@" "$bin" run "${run_args[@]}" -q -o /dev/null --summary "$out/$name.json" \
        2> "$out/$name.err" || status=$?
    [ "$status" = 0 ] || { cat "$out/$name.err" >&2; exit 2; }
    jq -r '.rows[] | "   \(.strategy): preemptions \(.preemptions // "-") of \(.searched) puzzles"' \
        "$out/$name.json"
    grep -e 'held the workers off' -e 'workers were preempted' "$out/$name.err" |
        sed 's/^/   /' || echo "   (no such warning)"
}

one_case quiet
one_case highest-priority setsid -w sh -c 'echo -20 > /proc/self/autogroup; exec nice -n -20 "$@"' sh
for cpu in $(seq 0 $(($(nproc) - 1))); do
    taskset -c "$cpu" sh -c 'while :; do :; done' &
    spinners+=($!)
done
one_case spinning-neighbours
stop_spinners
