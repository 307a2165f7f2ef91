#!/usr/bin/env bash
# Performance gate: the current tree against a recorded commit, timed in ONE run.
#
#   scripts/perf-gate.sh                 run the gate (exit 0 pass, 1 regression, 2 error)
#   scripts/perf-gate.sh --set-base REV  record REV in results/perf-gate-base (then commit it)
#   scripts/perf-gate.sh --corpora       say which corpora the gate would time and count
#                                        nodes on, and exit (nothing is built)
#
#   PERF_GATE_BASE=REV          gate against REV instead of the recorded commit (CI passes
#                               a pull request's base)
#   PERF_GATE_THRESHOLD=5%      smallest slowdown that fails (write the %: a bare number is
#                               a fraction, 0.05)
#   PERF_GATE_STRATEGIES=fast,dlx  the strategies whose time is gated (each must be one of
#                               `sudoku-bench strategies`; one the base lacks is skipped)
#   PERF_GATE_ATTEMPTS=2        timed runs a slowdown must show in, one after the other
#   PERF_GATE_CONFIDENCE=99.5%  confidence level of the time intervals
#   PERF_GATE_TOP1465=PATH      magictour top1465, whose first 1,000 puzzles are timed
#                               (default ../shared/datasets/puzzles3_magictour_top1465;
#                               relative to the repository; without it, datasets/minimal.txt
#                               is)
#
#   PERF_GATE_HISTORY=PATH      the history the timed runs are recorded in (default
#                               results/history.sqlite; `off`: none)
#   PERF_GATE_HISTORY_GATE=1    fail (exit 1) when `history check --since BASE` finds a
#                               slowdown; by default it is reported, not gated
#
# Both the base commit (checked out from git history into a temporary worktree under
# target/) and the current tree are built: the CLI and libsudoku_bench_ffi.so, which exports
# every strategy through tdoku's C ABI. Then:
#
# 1. Time: one run of the current CLI loads each gated strategy X from both libraries, as
#    X-base and X-head, and `compare --between X-base,X-head` judges them puzzle by puzzle.
#    Their phases alternate within every chunk of the run, so a busy neighbour or a clock
#    change hits both alike: the machine's drift cancels, which two separate runs cannot
#    promise. Only strategies that finish the corpus without a node budget are timed (a
#    library call cannot be interrupted); the node gate covers the others' search.
# 2. Nodes: the base CLI and the current one each run every strategy both have, and
#    `compare` must report no search change. Node counts are deterministic, so this part
#    is exact whatever the machine. (Its time verdict, one run per side, is inconclusive
#    by design and does not fail.)
# 3. History: scripts/history-record.sh records the timed runs under HEAD (each gated
#    strategy's head library as the strategy itself: the series scripts/history-backfill.sh
#    makes too), and `history check --since BASE` reports the change points of every
#    series, which a per-change gate cannot see (a creep of small slowdowns). Recording
#    never fails the gate: when it cannot be done, it says so.
set -euo pipefail
# Exit status 1 means a regression and nothing else: any other failure exits 2. `timed` and
# the calls of compare say which step failed; this trap catches whatever else fails under
# set -e (-E: in functions too).
set -E
trap 'echo "perf-gate: failed (line $LINENO): $BASH_COMMAND" >&2; exit 2' ERR
cd "$(dirname "$0")/.."

BASE_FILE=results/perf-gate-base
THRESHOLD=${PERF_GATE_THRESHOLD:-5%}
GATED=${PERF_GATE_STRATEGIES:-fast,dlx}
# A gate compares the same code far more often than changed code: at 95%, one comparison in
# 20 of identical code reads `faster` or `slower` (not past threshold, so it passes, but a
# reader is told of a change that is not there). At 99.5%, one in 200.
CONFIDENCE=${PERF_GATE_CONFIDENCE:-99.5%}
# A slowdown must show in this many runs in a row: a real one shows in every run, a burst of
# noise that got through one run's interval rarely strikes twice. Nodes need no second look.
ATTEMPTS=${PERF_GATE_ATTEMPTS:-2}
# The node gate's budget: the slow strategies stop there, still deterministically.
MAX_NODES=20000
# TOP1465, timed_corpus, REPEAT and CHUNK: the corpus and how it is timed, shared with
# scripts/history-backfill.sh.
. scripts/perf-corpus.sh
LIB=libsudoku_bench_ffi.so

# Time is judged on one corpus: hard puzzles, each a search long enough to time well, and
# enough of them for a tight interval. The first 1,000 of top1465 when it is there; else the
# 1,000 generated puzzles of minimal.txt, easier but many (classic.txt's 14 swung by up to
# 15% in one run with no code change: one noisy puzzle moves a small corpus's mean). Nodes
# are counted on classic.txt and the timed corpus.
if [ -f "$TOP1465" ]; then
    time_corpus="the first 1000 puzzles of $TOP1465"
else
    time_corpus=datasets/minimal.txt
fi

usage() {
    echo "usage: $0 [--set-base REV | --corpora]" >&2
    exit 2
}

# The commit REV names, on stdout; exit status 2 (and why, on stderr) unless it is a commit here with the ffi/ crate the
# strategies' library is built from.
commit_with_ffi() {
    local commit
    commit=$(git rev-parse --verify --quiet "$1^{commit}") || {
        echo "perf-gate: $1 is not a commit here (a shallow clone? fetch it)" >&2
        exit 2
    }
    if ! git cat-file -e "$commit:ffi/Cargo.toml" 2>/dev/null; then
        echo "perf-gate: $1 has no ffi/ crate to build the strategies' library from; use a later commit" >&2
        exit 2
    fi
    echo "$commit"
}

case "${1:-}" in
    --corpora)
        [ $# -eq 1 ] || usage
        if [ "$time_corpus" = datasets/minimal.txt ]; then
            echo "time: datasets/minimal.txt ($TOP1465 not found)"
        else
            echo "time: $time_corpus"
        fi
        echo "nodes: datasets/classic.txt and the timed corpus"
        exit 0
        ;;
    --set-base)
        [ $# -eq 2 ] || usage
        commit=$(commit_with_ffi "$2") || exit 2
        echo "$commit" >"$BASE_FILE"
        echo "perf-gate: $BASE_FILE now records $commit; commit it" >&2
        exit 0
        ;;
    "") [ $# -eq 0 ] || usage ;;
    *) usage ;;
esac

if [ -n "${PERF_GATE_BASE:-}" ]; then
    base_rev=$PERF_GATE_BASE
elif [ -f "$BASE_FILE" ]; then
    base_rev=$(head -n 1 "$BASE_FILE")
else
    echo "perf-gate: no $BASE_FILE; record a commit with $0 --set-base REV" >&2
    exit 2
fi
base=$(commit_with_ffi "$base_rev") || exit 2

# The base builds in a target directory of its own, kept between runs for its dependencies.
# Sharing the current tree's would save compiling them once, but both builds write the
# library to the same file name (a cdylib's name carries no hash), so each run would relink
# both libraries from scratch. The base's CLI and library are then kept per commit and
# toolchain: a fresh checkout's files are all newer than any earlier build, so cargo would
# rebuild them every time.
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
work=$target/perf-gate
tree=$work/base-tree
base_out=$work/base-$base-$(rustc -V | cksum | cut -d ' ' -f 1)
head_out=$target/release

remove_tree() {
    if [ -e "$tree" ]; then
        git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
    fi
    git worktree prune
}
mkdir -p "$work"
remove_tree # left over by a run that was killed
trap remove_tree EXIT

# `timed NAME COMMAND...`: run it and say how long it took; if it fails (a build, or a run
# whose --strict found a wrong answer or a failed solver), say so and exit 2. A function
# given as COMMAND runs here in a condition, where set -e does not stop it: chain its steps
# with &&.
timed() {
    local name=$1 start status=0
    shift
    start=$(date +%s%N)
    "$@" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "perf-gate: $name failed (exit $status); no verdict" >&2
        exit 2
    fi
    echo "perf-gate: $name: $((($(date +%s%N) - start) / 1000000)) ms" >&2
}

echo "perf-gate: base $base ($base_rev)" >&2
build_base() {
    git worktree add --quiet --detach "$tree" "$base" &&
        CARGO_TARGET_DIR="$work/base-target" \
            cargo build --release --locked --quiet --manifest-path "$tree/Cargo.toml" &&
        remove_tree &&
        mkdir -p "$base_out.partial" &&
        cp "$work/base-target/release/sudoku-bench" "$work/base-target/release/$LIB" \
            "$base_out.partial/" &&
        mv "$base_out.partial" "$base_out"
}
if [ -d "$base_out" ]; then
    echo "perf-gate: the base's build is kept in $base_out" >&2
else
    rm -rf "$base_out.partial"
    timed "build base" build_base
fi
timed "build head" env CARGO_TARGET_DIR="$target" cargo build --release --locked --quiet

if [ "$time_corpus" = datasets/minimal.txt ]; then
    echo "perf-gate: $TOP1465 not found: time is judged on datasets/minimal.txt" >&2
fi
# Cut to a fixed path so that the corpus column is the same in every run. target/ is
# ignored by git.
timed=$(timed_corpus "$work")
timed_corpora=("$timed")
corpora=(datasets/classic.txt "$timed")

strategies() { "$1" strategies | awk '/^[^ ]/ {print $1}' | sort; }
base_strategies=$(strategies "$base_out/sudoku-bench")
head_strategies=$(strategies "$head_out/sudoku-bench")
common=$(comm -12 <(cat <<<"$base_strategies") <(cat <<<"$head_strategies"))
new=$(comm -13 <(cat <<<"$base_strategies") <(cat <<<"$head_strategies"))
if [ -n "$new" ]; then
    echo "perf-gate: not in the base, so not gated: $(paste -sd ' ' <<<"$new")" >&2
fi

# 1. Time, in one run. A gated name must be a strategy of the current tree (a typo must not
# pass the gate untimed); only one the base does not have yet is skipped.
solvers=()
between=()
takes=()
for s in ${GATED//,/ }; do
    if ! grep -qxF "$s" <<<"$head_strategies"; then
        echo "perf-gate: PERF_GATE_STRATEGIES names $s, not a strategy of the current tree" \
            "(sudoku-bench strategies: $(paste -sd ' ' <<<"$head_strategies"))" >&2
        exit 2
    fi
    if ! grep -qxF "$s" <<<"$base_strategies"; then
        echo "perf-gate: $s is not a strategy of the base; not timed" >&2
        continue
    fi
    solvers+=(--solver "$s-base=lib:$base_out/$LIB:sudoku_bench_$s")
    solvers+=(--solver "$s-head=lib:$head_out/$LIB:sudoku_bench_$s")
    between+=(--between "$s-base,$s-head")
    takes+=(--strategy "$s-head=$s")
done
# time_status: 0 pass, 1 slower, 2 error; search_moved: the libraries' guesses differ.
time_status=0
search_moved=0
timed_runs=0
if [ ${#between[@]} -gt 0 ]; then
    for attempt in $(seq 1 "$ATTEMPTS"); do
        # -s fast: the reference every count is checked against (--strict fails on any).
        timed "timed run $attempt" "$head_out/sudoku-bench" run "${timed_corpora[@]}" \
            -s fast "${solvers[@]}" --chunk-size "$CHUNK" --timeout 0 --repeat "$REPEAT" \
            --threads 2 --quiet --strict --out "$work/time-$attempt.csv" \
            --summary "$work/time-$attempt.json"
        timed_runs=$attempt
        time_status=0
        "$head_out/sudoku-bench" compare "$work/time-$attempt.csv" "${between[@]}" \
            --threshold "$THRESHOLD" --confidence "$CONFIDENCE" || time_status=$?
        [ "$time_status" = 1 ] || break
        # compare's 1 is a slower row or a changed search (a pair's guesses differ, after an
        # intended change of search). The JSON tells them apart: a row whose search changed
        # has the verdict search_changed, not a time verdict. Only a slowdown is retimed.
        # (compare's JSON is pretty-printed, one field a line: grep needs no jq.)
        json=$("$head_out/sudoku-bench" compare "$work/time-$attempt.csv" "${between[@]}" \
            --threshold "$THRESHOLD" --confidence "$CONFIDENCE" --format json || true)
        slower=$(grep -c '"verdict": "slower"' <<<"$json" || true)
        changed=$(grep -Ec '"search_changed": [1-9]' <<<"$json" || true)
        if [ "$changed" -gt 0 ]; then
            search_moved=1
        fi
        if [ "$slower" -eq 0 ]; then
            time_status=0
            break
        fi
        echo "perf-gate: slower than the base in attempt $attempt of $ATTEMPTS" >&2
    done
fi

# 2. Nodes, exact.
for side in base head; do
    out=${side}_out
    timed "node run ($side)" "${!out}/sudoku-bench" run "${corpora[@]}" \
        -s "$(paste -sd , <<<"$common")" --max-nodes "$MAX_NODES" --timeout 0 --threads 2 \
        --quiet --strict --out "$work/nodes-$side.csv"
done
node_status=0
"$head_out/sudoku-bench" compare "$work/nodes-base.csv" "$work/nodes-head.csv" ||
    node_status=$?

# 3. History (scripts/history-record.sh says what it does; it never fails for the
# recording's sake). history_status: 1 when it gates and found a slowdown since the base.
history_status=0
if [ "${PERF_GATE_HISTORY:-}" = off ]; then
    echo "perf-gate: history: PERF_GATE_HISTORY=off: not recorded" >&2
elif [ "$timed_runs" -eq 0 ]; then
    echo "perf-gate: history: nothing was timed; nothing recorded" >&2
else
    summaries=()
    for attempt in $(seq 1 "$timed_runs"); do
        summaries+=("$work/time-$attempt.json")
    done
    history_gate=()
    if [ "${PERF_GATE_HISTORY_GATE:-0}" = 1 ]; then
        history_gate=(--gate)
    fi
    SUDOKU_BENCH=$head_out/sudoku-bench scripts/history-record.sh \
        --db "${PERF_GATE_HISTORY:-results/history.sqlite}" --since "$base" \
        "${history_gate[@]}" "${takes[@]}" "${summaries[@]}" || history_status=$?
    if [ "$history_status" -ge 2 ]; then
        echo "perf-gate: history: scripts/history-record.sh exit $history_status; the gate goes on" >&2
        history_status=0
    fi
fi

if [ "$time_status" -ge 2 ] || [ "$node_status" -ge 2 ]; then
    exit 2
fi
if [ "$node_status" = 1 ] || [ "$search_moved" = 1 ]; then
    echo "perf-gate: search changed: node counts (or the timed libraries' guesses) differ" \
        "from the base's. If that is intended, move the base past this change" \
        "($0 --set-base REV)." >&2
fi
if [ "$time_status" = 1 ]; then
    echo "perf-gate: slower than the base in all $ATTEMPTS timed runs" >&2
fi
if [ "$time_status" = 1 ] || [ "$node_status" = 1 ] || [ "$search_moved" = 1 ]; then
    exit 1
fi
if [ "$history_status" = 1 ]; then
    echo "perf-gate: the history finds a slowdown since the base (PERF_GATE_HISTORY_GATE=1)" >&2
    exit 1
fi
echo "perf-gate: pass" >&2
