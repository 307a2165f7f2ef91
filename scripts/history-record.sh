#!/usr/bin/env bash
# Record runs of HEAD in the history, then report its change points: what CI does after a
# timed run (scripts/perf-gate.sh calls it with its timed runs' summaries).
#
#   scripts/history-record.sh [--db PATH] [--since REV] [--gate] [--strategy FROM=TO]... SUMMARY.json...
#
#   --db PATH          the history (default results/history.sqlite; its directory is made)
#   --since REV        report the slowdowns since REV (`history check --since`); when REV is
#                      not in the history yet, the whole history is checked, saying so
#   --gate             exit 1 when the check finds such a slowdown (default: report it)
#   --strategy FROM=TO as `history add --strategy`: record only FROM's rows, as TO
#
#   SUDOKU_BENCH=PATH  the sudoku-bench to call (default target/release/sudoku-bench)
#
# The runs are recorded under `git rev-parse HEAD` at its commit time, with the branch when
# HEAD is on one, labelled source=ci; not when src/, crates/, ffi/ or Cargo.* differ from
# HEAD (what was timed is then not HEAD). Recording is a side job: whatever fails in it (no history
# can be written, a summary refused, the check) is said on stderr and the exit status is 0;
# only --gate with a slowdown exits 1, and bad usage 2.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: $0 [--db PATH] [--since REV] [--gate] [--strategy FROM=TO]... SUMMARY.json..." >&2
    exit 2
}

db=results/history.sqlite
since=
gate=0
takes=()
summaries=()
while [ $# -gt 0 ]; do
    case "$1" in
        --db | --since | --strategy)
            [ $# -ge 2 ] || usage
            case "$1" in
                --db) db=$2 ;;
                --since) since=$2 ;;
                --strategy) takes+=(--strategy "$2") ;;
            esac
            shift 2
            ;;
        --gate)
            gate=1
            shift
            ;;
        -*) usage ;;
        *)
            summaries+=("$(realpath -m "$1")")
            shift
            ;;
    esac
done
[ ${#summaries[@]} -gt 0 ] || usage
bench=${SUDOKU_BENCH:-target/release/sudoku-bench}

say() { echo "history-record: $*" >&2; }

# 0 recorded, 1 not (said).
record() {
    local commit when branch status=0
    if ! commit=$(git rev-parse --verify --quiet HEAD); then
        say "no commit to record under (not a git repository, or no commit yet)"
        return 1
    fi
    if [ -n "$(git status --porcelain -- src crates ffi Cargo.toml Cargo.lock)" ]; then
        say "src/, crates/, ffi/ or Cargo.* differ from HEAD: what was timed is not HEAD; not recorded"
        return 1
    fi
    when=$(git show -s --format=%cI HEAD)
    branch=$(git symbolic-ref --quiet --short HEAD || true)
    mkdir -p "$(dirname "$db")" 2>/dev/null || true
    "$bench" history add "${summaries[@]}" "${takes[@]}" --commit "$commit" --time "$when" \
        ${branch:+--branch "$branch"} --label source=ci --db "$db" || status=$?
    if [ "$status" -ne 0 ]; then
        say "not recorded (history add exit $status, said above)"
        return 1
    fi
}

# history check's exit status; its report on stdout, its errors on stderr.
check() {
    local err status=0
    err=$(mktemp)
    if [ -n "$since" ]; then
        "$bench" history check --db "$db" --since "$since" 2>"$err" || status=$?
        if [ "$status" = 2 ] && grep -q "no such commit in the history" "$err"; then
            say "$since is not in the history: the whole history checked"
            status=0
            "$bench" history check --db "$db" 2>"$err" || status=$?
        fi
    else
        "$bench" history check --db "$db" 2>"$err" || status=$?
    fi
    cat "$err" >&2
    rm -f "$err"
    return "$status"
}

record || true
status=0
check || status=$?
case "$status" in
    0) ;;
    1)
        if [ "$gate" = 1 ]; then
            say "a slowdown since $since (above): fails (--gate)"
            exit 1
        fi
        say "a slowdown since ${since:-the first commit} (above): reported, not gated"
        ;;
    *) say "history check failed (exit $status, said above)" ;;
esac
exit 0
