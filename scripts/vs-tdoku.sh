#!/usr/bin/env bash
# `fast` against tdoku, the fastest published solver, on this machine: prints a Markdown
# table for README.md.
#
#   scripts/vs-tdoku.sh            (ROUNDS=5 by default; CXX: clang++ if present, else g++)
#
# Builds ../shared/anchors/tdoku (scripts/build-tdoku.sh), then times both in the same `sudoku-bench run` (`-s fast --solver
# tdoku=lib:...`), one thread, no node budget or timeout, so their phases interleave
# chunk by chunk and share whatever the machine is doing. Each corpus runs counting to 2
# and stopping at 1, ROUNDS times (rounds outermost, so a slow spell hits every cell
# alike). The table gives the medians over the rounds of each one's per-core puzzles/s
# (the summary's, from summed solve times), of their ratio within a round, and of
# each one's median time per puzzle. A row whose answers were wrong or failed says so.
#
# Four classes are made on the fly with `sudoku-bench generate` (recipes in
# datasets/README.md): puzzles with 2+ solutions and puzzles with none whose givens break no
# rule, COUNT each (default 10000), seed 1.
#
# More corpora: add a "label|path" line to CORPORA.
set -euo pipefail
cd "$(dirname "$0")/.."

shared=../shared
tdoku_src=$shared/anchors/tdoku
if [ ! -d "$shared/datasets" ] || [ ! -f "$tdoku_src/src/solver_dpll_triad_simd.cc" ]; then
    echo "skipped: ../shared/datasets and ../shared/anchors/tdoku are needed beside the clone" >&2
    exit 0
fi

CORPORA=(
    "17-clue|$shared/datasets/puzzles2_17_clue"
    "magictour top1465|$shared/datasets/puzzles3_magictour_top1465"
    "forum hardest 1905 11+|$shared/datasets/puzzles5_forum_hardest_1905_11+"
)
MODES=(2 1)
count=${COUNT:-10000}
rounds=${ROUNDS:-5}
lib=$(scripts/build-tdoku.sh)
compiler=$(cat "$lib.compiler")
echo "== building sudoku-bench (release)" >&2
cargo build --release --quiet
bin=target/release/sudoku-bench

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== generating the classes of $count puzzles each" >&2
CLASSES=(
    "2+ solutions, 3 more blanks|--solutions many --extra-blanks 3"
    "2+ solutions, 12 more blanks|--solutions many --extra-blanks 12"
    "no solution, 1 given changed|--solutions none"
    "no solution, 8 blanks and 1 given changed|--solutions none --extra-blanks 8"
)
for k in "${!CLASSES[@]}"; do
    # shellcheck disable=SC2086 # the class's options, split on purpose
    "$bin" generate --count "$count" --seed 1 ${CLASSES[$k]#*|} --quiet \
        --out "$work/class-$k.txt" 2>/dev/null
    CORPORA+=("${CLASSES[$k]%%|*} (generated)|$work/class-$k.txt")
done
for round in $(seq 1 "$rounds"); do
    for c in "${!CORPORA[@]}"; do
        corpus=${CORPORA[$c]#*|}
        for mode in "${MODES[@]}"; do
            echo "== round $round/$rounds: ${CORPORA[$c]%%|*}, counting to $mode" >&2
            # tdoku keeps its solver in globals: its own process (the default) keeps them
            # its own; times are taken inside that process, so they compare with fast's.
            "$bin" run "$corpus" -s fast --solver "tdoku=lib:$lib:TdokuSolverDpllTriadSimd" \
                --threads 1 --max-nodes 0 --timeout 0 --max-solutions "$mode" \
                --quiet --out /dev/null --summary "$work/$c-$mode-$round.json"
        done
    done
done

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$work" "$rounds" "$commit" "$compiler" "${MODES[*]}" "${CORPORA[@]%%|*}" <<'EOF'
import json, statistics, sys
work, rounds, commit, compiler, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5].split()
labels = sys.argv[6:]
median = statistics.median
first = None
lines = []
for c, label in enumerate(labels):
    for mode in modes:
        runs = [json.load(open(f"{work}/{c}-{mode}-{r}.json")) for r in range(1, rounds + 1)]
        first = first or runs[0]
        rows = [{row["strategy"]: row for row in run["rows"]} for run in runs]
        def med(name, field):
            return median(r[name][field] for r in rows)
        fast, tdoku = med("fast", "puzzles_per_s_per_core"), med("tdoku", "puzzles_per_s_per_core")
        ratio = median(r["fast"]["puzzles_per_s_per_core"] / r["tdoku"]["puzzles_per_s_per_core"] for r in rows)
        wrong = sum(r[n]["mismatches"] + r[n]["failures"] for r in rows for n in ("fast", "tdoku"))
        note = f" ({wrong} wrong or failed answers)" if wrong else ""
        to = "2" if mode == "2" else "1 (first solution)"
        lines.append(
            f"| {label}{note} | {to} | {fast:,.0f} | {tdoku:,.0f} | {ratio:.2f} "
            f"| {med('fast', 'median_ns') / 1000:.1f} | {med('tdoku', 'median_ns') / 1000:.1f} "
            f"| {med('fast', 'mean_guesses'):.2f} | {med('tdoku', 'mean_guesses'):.2f} |"
        )
m = first["machine"]
print(f"{m['cpu']}, {m['cores']} cores, {m['os']} {m['arch']}; one thread; {first['date'][:10]}, "
      f"commit {commit}; tdoku built with {compiler}; median of {rounds} rounds.")
print()
print("| corpus | counting to | `fast` puzzles/s | tdoku puzzles/s | `fast` / tdoku "
      "| `fast` median µs | tdoku median µs | `fast` guesses/puzzle | tdoku guesses/puzzle |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
print("\n".join(lines))
EOF
