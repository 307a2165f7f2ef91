#!/usr/bin/env bash
# Measures every strategy on the shared corpora with sudoku-bench itself and writes the
# Markdown summaries that docs/measurements.md's benchmark tables are pasted from.
#
#   scripts/bench-table.sh [OUT_DIR]        (default: results/bench-table)
#
# - magictour top1465: every strategy on every puzzle (slow ones within the default
#   node budget, so some of their puzzles are `aborted`).
# - 17-clue and forum hardest: `dlx` and `fast` on every puzzle; the strategies without
#   propagation on a fixed sample (every 20th puzzle), since most of these puzzles cost
#   them the whole budget.
# - `fast` alone, single-threaded, counting to 2 and (forum hardest) stopping at 1: the
#   figures compared with other solvers.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/bench-table}
shared=../shared/datasets
mkdir -p "$out"
cargo build --release --quiet
bin=target/release/sudoku-bench

sample() { grep -v '^#' "$1" | awk 'NR % 20 == 1'; }

run() { # name, then run arguments
    local name=$1; shift
    echo "== $name" >&2
    "$bin" run "$@" --quiet --out "$out/$name.csv" --summary "$out/$name.md"
}

run top1465-all "$shared/puzzles3_magictour_top1465"
for corpus in puzzles2_17_clue puzzles5_forum_hardest_1905_11+; do
    run "$corpus-dlx-fast" "$shared/$corpus" -s dlx,fast
    sample "$shared/$corpus" > "$out/$corpus.sample20"
    run "$corpus-sample20-slow" "$out/$corpus.sample20" -s naive,hashset,bitmask,stack
done
for corpus in puzzles2_17_clue puzzles3_magictour_top1465 puzzles5_forum_hardest_1905_11+; do
    run "$corpus-fast-1thread" "$shared/$corpus" -s fast --threads 1
done
run "forum-hardest-fast-1thread-first" "$shared/puzzles5_forum_hardest_1905_11+" -s fast --threads 1 --max-solutions 1
run "17-clue-fast-2threads" "$shared/puzzles2_17_clue" -s fast --threads 2
echo "summaries in $out/*.md" >&2
