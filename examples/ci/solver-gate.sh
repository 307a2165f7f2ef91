#!/usr/bin/env bash
# The performance gate of a solver's OWN repository (copy this file and solver-gate.yml
# into it): build the solver at the pull request's base and at its head, time both in ONE
# run of sudoku-bench (their phases alternate chunk by chunk, pinned to the same CPUs, so
# the runner's noise hits both alike), judge them with `compare --between base,head`, and
# exit as compare does.
#
#   examples/ci/solver-gate.sh BASE [HEAD]     (git revisions of the repository it runs in;
#                                               HEAD defaults to HEAD)
#
# Exit: 0 no slowdown past the threshold; 1 slower past it, or a wrong answer, or the two
# builds' answers differ; 2 an error (a build failed, bad input, ...).
#
# Environment (defaults in brackets):
#   GATE_CORPUS      the puzzles to time, a file sudoku-bench reads (required)
#   GATE_BUILD       shell command run in a checkout of each revision, with OUT set to the
#                    path the solver must be built to [cc -O2 -shared -fPIC solver.c -o "$OUT"]
#   GATE_KIND        lib (a shared library with tdoku's C ABI) or cmd (a program speaking the
#                    line protocol) [lib]
#   GATE_SYMBOL      the library's function [sudoku_solve]
#   GATE_THRESHOLD   the slowdown that fails the gate [5%]
#   GATE_CONFIDENCE  the intervals' level [99.5%]: a gate mostly compares code that did not
#                    change, and at 95% one such comparison in 20 reads `faster` or `slower`
#   GATE_RUN_OPTIONS extra options of `run` [--chunk-size 4 --repeat 3 --timeout 0]: short
#                    phases, so each replicate averages over many of them (docs/ci.md)
#   GATE_SAME_SEARCH 1: also fail when the two builds' searches differ (their guesses on a
#                    puzzle); by default a changed search is reported, not failed: a pull
#                    request that changes the algorithm is judged by its time
#   GATE_COUNT       1: also count both builds' instructions in a second run (`run --measure
#                    instructions`, under Valgrind: install it, `apt-get install valgrind`)
#                    and fail on a count that grew past GATE_COUNT_THRESHOLD [1%], which a
#                    busy runner cannot flip and which sees what times call inconclusive.
#                    Counting is slower than timing (Valgrind): GATE_COUNT_CORPUS
#                    [GATE_CORPUS] can be a smaller file. With GATE_HISTORY, the head's
#                    counts are recorded too, as the strategy `head` (series `instructions`)
#   GATE_OUT         where the run's CSV, summary and the verdicts go [perf-gate]
#   GATE_HISTORY     a history (`history add --db`) to record the run and its comparison in,
#                    under HEAD's commit; the comparison's `base -> head` series is the one
#                    to watch (`history check`); unset: nothing recorded
#   SUDOKU_BENCH     the sudoku-bench to run [sudoku-bench on the PATH]
set -euo pipefail

usage() { echo "usage: solver-gate.sh BASE [HEAD]  (GATE_CORPUS=FILE required)" >&2; exit 2; }
(( $# >= 1 && $# <= 2 )) || usage
base_rev=$1
head_rev=${2:-HEAD}
corpus=${GATE_CORPUS:?solver-gate.sh: set GATE_CORPUS to the puzzles to time}
build=${GATE_BUILD:-'cc -O2 -shared -fPIC solver.c -o "$OUT"'}
kind=${GATE_KIND:-lib}
symbol=${GATE_SYMBOL:-sudoku_solve}
threshold=${GATE_THRESHOLD:-5%}
confidence=${GATE_CONFIDENCE:-99.5%}
read -r -a run_options <<<"${GATE_RUN_OPTIONS:---chunk-size 4 --repeat 3 --timeout 0}"
out=${GATE_OUT:-perf-gate}
bench=${SUDOKU_BENCH:-sudoku-bench}

command -v "$bench" >/dev/null || { echo "solver-gate.sh: $bench not found (set SUDOKU_BENCH)" >&2; exit 2; }
[[ -r $corpus ]] || { echo "solver-gate.sh: cannot read GATE_CORPUS=$corpus" >&2; exit 2; }
case $kind in lib|cmd) ;; *) echo "solver-gate.sh: GATE_KIND must be lib or cmd, not $kind" >&2; exit 2 ;; esac
top=$(git rev-parse --show-toplevel)
base_sha=$(git rev-parse --verify "$base_rev^{commit}") || { echo "solver-gate.sh: no commit $base_rev" >&2; exit 2; }
head_sha=$(git rev-parse --verify "$head_rev^{commit}") || { echo "solver-gate.sh: no commit $head_rev" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
corpus=$(cd "$(dirname "$corpus")" && pwd)/$(basename "$corpus")
work=$(mktemp -d)
cleanup() {
    git -C "$top" worktree remove --force "$work/base" 2>/dev/null || true
    git -C "$top" worktree remove --force "$work/head" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Each revision in a checkout of its own, built by the repository's own command.
solvers=()
for side in base head; do
    sha=${side}_sha
    git -C "$top" worktree add -q --detach "$work/$side" "${!sha}"
    built=$work/$side.$([[ $kind == lib ]] && echo so || echo bin)
    if ! (cd "$work/$side" && OUT=$built bash -c "$build"); then
        echo "solver-gate.sh: building $side (${!sha}) failed: $build" >&2
        exit 2
    fi
    [[ -e $built ]] || { echo "solver-gate.sh: building $side made no $built: $build" >&2; exit 2; }
    if [[ $kind == lib ]]; then
        solvers+=(--solver "$side=lib:$built:$symbol")
    else
        solvers+=(--solver "$side=cmd:$built")
    fi
done

# One run, both solvers; every answer is checked against the built-in reference (--strict:
# a wrong answer fails the gate).
status=0
"$bench" run "$corpus" -s none "${solvers[@]}" "${run_options[@]}" --strict -q \
    -o "$out/run.csv" --summary "$out/run.json" || status=$?
if (( status != 0 )); then
    echo "solver-gate.sh: the run exited $status (1: a wrong answer or a failed solve; see above)" >&2
    exit "$status"
fi

search=(--allow-search-changes)
[[ ${GATE_SAME_SEARCH:-0} == 1 ]] && search=()
verdict() {
    "$bench" compare "$out/run.csv" --between base,head --threshold "$threshold" \
        --confidence "$confidence" "${search[@]}" --format "$1"
}
status=0
verdict markdown >"$out/verdict.md" || status=$?
(( status <= 1 )) || exit "$status"
verdict json >"$out/verdict.json" || (( $? <= 1 ))
cat "$out/verdict.md"

if [[ ${GATE_COUNT:-0} == 1 ]]; then
    counted=0
    "$bench" run "${GATE_COUNT_CORPUS:-$corpus}" -s none "${solvers[@]}" --measure instructions \
        --timeout 0 --strict -q -o "$out/counted.csv" --summary "$out/counted.json" || counted=$?
    (( counted == 0 )) || { echo "solver-gate.sh: the counting run exited $counted" >&2; exit "$counted"; }
    counted=0
    "$bench" compare "$out/counted.csv" --between base,head "${search[@]}" \
        --count-threshold "${GATE_COUNT_THRESHOLD:-1%}" --format markdown \
        >"$out/counted.md" || counted=$?
    (( counted <= 1 )) || exit "$counted"
    cat "$out/counted.md"
    (( counted > status )) && status=$counted
fi

if [[ -n ${GATE_HISTORY:-} ]]; then
    "$bench" history add "$out/run.json" "$out/verdict.json" --commit "$head_sha" \
        --time "$(git show -s --format=%ct "$head_sha")" --db "$GATE_HISTORY"
    if [[ ${GATE_COUNT:-0} == 1 ]]; then
        # The head's counts alone: the base's belong to the base's commit.
        "$bench" history add "$out/counted.json" --strategy head=head --commit "$head_sha" \
            --time "$(git show -s --format=%ct "$head_sha")" --db "$GATE_HISTORY"
    fi
fi
exit "$status"
