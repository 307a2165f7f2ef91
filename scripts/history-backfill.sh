#!/usr/bin/env bash
# History backfill: the last N commits of the current branch, timed side by side in ONE run,
# then recorded in the history one commit at a time.
#
#   scripts/history-backfill.sh N [--from REV] [--db PATH] [--lib-cmd CMD] [-- RUN OPTIONS...]
#
#   N             the commits: the last N of the current branch's first-parent line (a
#                 merge is one step of the branch, as CI saw it)
#   --from REV    the newest commit: REV's line instead of the current branch's (a branch
#                 named is recorded as the runs' --branch, as the current one is)
#   --db PATH     the history (default results/history.sqlite)
#   --lib-cmd CMD how a commit's library is built, instead of cargo: bash runs CMD in the
#                 commit's checked-out tree with $1 the tree and $2 the file to write (the
#                 tests point it at a library built already)
#   -- OPTIONS    run options in place of the timing defaults below (a series is keyed by
#                 them: the defaults are the perf gate's, so that its runs and a backfill's
#                 make one series)
#
#   PERF_GATE_TOP1465=PATH  as for scripts/perf-gate.sh: the corpus timed is the gate's
#   SUDOKU_BENCH=PATH       the sudoku-bench that runs and records (default: this tree's,
#                           built with cargo build --release)
#
# Each commit's libsudoku_bench_ffi.so (the ffi/ crate: the strategies through tdoku's C ABI)
# is built in one worktree checked out at each commit in turn, into one target directory
# kept between backfills (target/backfill/target), and cached by what it is built from:
# the trees of src/, crates/ (from the workspace's split on), ffi/, Cargo.toml and
# Cargo.lock, and the toolchain
# (target/backfill/lib-KEY.so). A commit whose trees equal an earlier one's takes its
# library (same code: their points differ by noise alone). A commit without ffi/, or whose
# library does not build or lacks sudoku_bench_fast, is said and left out.
#
# Then one run of this tree's sudoku-bench loads each commit's sudoku_bench_fast as cSHORT
# (`--solver cSHORT=lib:...`), with the built-in fast as the reference of --strict: the run
# alternates the strategies chunk by chunk, so the whole series is measured side by side, on
# one machine at one time. `compare --between cNEWEST,cX` gives each older commit's time over
# the newest's. Each commit is recorded with `history add --commit SHA --time (its commit
# time) --strategy cSHORT=fast`, its ratio (series `cNEWEST -> fast`: higher is slower) with
# it; then `history check` reports the changes.
set -euo pipefail
set -E
# The traps write to fd 3, this script's stderr: a build's output goes to its log, and a
# trap may run inside that redirection.
exec 3>&2
trap 'echo "history-backfill: failed (line $LINENO): $BASH_COMMAND" >&3; exit 2' ERR
cd "$(dirname "$0")/.."
. scripts/perf-corpus.sh

usage() {
    echo "usage: $0 N [--from REV] [--db PATH] [--lib-cmd CMD] [-- RUN OPTIONS...]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
count=$1
shift
case "$count" in
    '' | *[!0-9]* | 0) usage ;;
esac
db=results/history.sqlite
from=HEAD
lib_cmd=
# The perf gate's timing (REPEAT and CHUNK from scripts/perf-corpus.sh, which says why).
run_options=(--chunk-size "$CHUNK" --timeout 0 --repeat "$REPEAT" --threads 2)
while [ $# -gt 0 ]; do
    case "$1" in
        --from)
            [ $# -ge 2 ] || usage
            from=$2
            shift 2
            ;;
        --db)
            [ $# -ge 2 ] || usage
            db=$2
            shift 2
            ;;
        --lib-cmd)
            [ $# -ge 2 ] || usage
            lib_cmd=$2
            shift 2
            ;;
        --)
            shift
            run_options=("$@")
            break
            ;;
        *) usage ;;
    esac
done

target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
work=$target/backfill
tree=$work/tree
build_target=$work/target
LIB=libsudoku_bench_ffi.so
start=$(date +%s)

remove_tree() {
    if [ -e "$tree" ]; then
        git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
    fi
    git worktree prune
    rm -f "$work"/*.partial
}
mkdir -p "$work"
remove_tree # left over by a backfill that was killed
trap remove_tree EXIT
trap 'echo "history-backfill: interrupted" >&3; exit 130' INT TERM

if [ -n "${SUDOKU_BENCH:-}" ]; then
    bench=$SUDOKU_BENCH
else
    echo "history-backfill: building this tree's sudoku-bench" >&2
    CARGO_TARGET_DIR="$target" cargo build --release --locked --quiet
    bench=$target/release/sudoku-bench
fi
toolchain=$(rustc -V 2>/dev/null || echo "no rustc")

# Oldest first: the order the history is recorded in.
newest_commit=$(git rev-parse --verify --quiet "$from^{commit}") || {
    echo "history-backfill: --from $from: not a commit here" >&2
    exit 2
}
mapfile -t commits < <(git rev-list --first-parent -n "$count" "$newest_commit" | tac)
if [ "${#commits[@]}" -lt "$count" ]; then
    echo "history-backfill: $from has ${#commits[@]} commit(s), not $count" >&2
fi
if [ "$from" = HEAD ]; then
    branch=$(git symbolic-ref --quiet --short HEAD || true)
elif git show-ref --verify --quiet "refs/heads/$from"; then
    branch=$from
else
    branch=
fi

# What a commit's library is built from, or nothing when it has no ffi/ crate. crates/
# only where the commit has it: the commits before the workspace's split keep their keys.
key_of() {
    local trees crates
    trees=$(git rev-parse "$1:src" "$1:ffi" "$1:Cargo.toml" "$1:Cargo.lock" 2>/dev/null) ||
        return 0
    if crates=$(git rev-parse --verify --quiet "$1:crates"); then
        trees+=$'\n'$crates
    fi
    printf '%s\n%s\n%s\n' "$trees" "$toolchain" "$lib_cmd" | sha1sum | cut -c1-16
}

# `build COMMIT OUT`. Called in a condition, where set -e does not stop it: its steps are
# chained with &&.
build() {
    if [ -e "$tree" ]; then
        git -C "$tree" checkout --quiet --detach "$1"
    else
        git worktree add --quiet --detach "$tree" "$1"
    fi && if [ -n "$lib_cmd" ]; then
        (cd "$tree" && bash -c "$lib_cmd" history-backfill "$tree" "$2")
    else
        CARGO_TARGET_DIR=$build_target cargo build --release --locked --quiet \
            -p sudoku-bench-ffi --manifest-path "$tree/Cargo.toml" &&
            cp "$build_target/release/$LIB" "$2"
    fi
}

solvers=()
names=()
taken=()
built=0 reused=0 cached=0 skipped=0
declare -A key_commit=()
for commit in "${commits[@]}"; do
    short=$(git rev-parse --short=10 "$commit")
    name=c$short
    key=$(key_of "$commit")
    if [ -z "$key" ]; then
        echo "history-backfill: $short has no ffi/ crate (older than the library): left out" >&2
        skipped=$((skipped + 1))
        continue
    fi
    lib=$work/lib-$key.so
    if [ -n "${key_commit[$key]:-}" ]; then
        echo "history-backfill: $short: src/, crates/, ffi/, Cargo.toml and Cargo.lock as at" \
            "${key_commit[$key]}: its library taken (same code)" >&2
        reused=$((reused + 1))
    elif [ -f "$lib" ]; then
        echo "history-backfill: $short: library cached ($lib)" >&2
        cached=$((cached + 1))
    else
        log=$work/build-$short.log
        t0=$(date +%s)
        if build "$commit" "$lib.partial" >"$log" 2>&1 && [ -s "$lib.partial" ]; then
            if command -v nm >/dev/null &&
                ! nm -D --defined-only "$lib.partial" | grep -w sudoku_bench_fast >/dev/null; then
                echo "history-backfill: $short: its library exports no sudoku_bench_fast: left out" >&2
                rm -f "$lib.partial"
                skipped=$((skipped + 1))
                continue
            fi
            mv "$lib.partial" "$lib"
            echo "history-backfill: $short: built in $(($(date +%s) - t0)) s" >&2
            built=$((built + 1))
        else
            rm -f "$lib.partial"
            echo "history-backfill: $short: the library does not build (its output:" \
                "$log): left out" >&2
            skipped=$((skipped + 1))
            continue
        fi
    fi
    key_commit[$key]=${key_commit[$key]:-$short}
    solvers+=(--solver "$name=lib:$lib:sudoku_bench_fast")
    names+=("$name")
    taken+=("$commit")
done
remove_tree
if [ "${#names[@]}" -eq 0 ]; then
    echo "history-backfill: no commit's library to time" >&2
    exit 2
fi

corpus=$(timed_corpus "$target/perf-gate")
echo "history-backfill: timing ${#names[@]} commit(s) in one run over $corpus" >&2
t0=$(date +%s)
"$bench" run "$corpus" -s fast "${solvers[@]}" "${run_options[@]}" --quiet --strict \
    --out "$work/run.csv" --summary "$work/run.json"
echo "history-backfill: run: $(($(date +%s) - t0)) s" >&2

newest=${names[-1]}
between=()
for name in "${names[@]::${#names[@]}-1}"; do
    between+=(--between "$newest,$name")
done
if [ ${#between[@]} -gt 0 ]; then
    # 1 is a slower verdict (or a changed search: allowed, the ratio is still read).
    status=0
    "$bench" compare "$work/run.csv" "${between[@]}" --allow-search-changes --format json \
        -o "$work/ab.json" || status=$?
    [ "$status" -le 1 ] || exit 2
fi

mkdir -p "$(dirname "$db")"
for i in "${!taken[@]}"; do
    commit=${taken[$i]}
    name=${names[$i]}
    files=("$work/run.json")
    if [ "$name" != "$newest" ]; then
        files+=("$work/ab.json")
    fi
    "$bench" history add "${files[@]}" --commit "$commit" \
        --time "$(git show -s --format=%cI "$commit")" --strategy "$name=fast" \
        --label source=history-backfill ${branch:+--branch "$branch"} --db "$db"
done

echo "history-backfill: ${#names[@]} commit(s) recorded in $db: $built built, $cached" \
    "cached, $reused with an earlier commit's code; $skipped left out;" \
    "$(($(date +%s) - start)) s in all" >&2
status=0
"$bench" history check --db "$db" || status=$?
[ "$status" -le 1 ] || exit 2
