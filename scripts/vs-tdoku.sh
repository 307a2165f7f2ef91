#!/usr/bin/env bash
# `fast` against tdoku, the fastest published solver, over the whole map of puzzles: clue
# count x solution count, plus the public corpora. Prints Markdown tables on stdout.
#
#   scripts/vs-tdoku.sh              COUNT=2000 puzzles a class (about 5 minutes here, most
#                                    of it making the 17-21 classes)
#   COUNT=100 scripts/vs-tdoku.sh    a smoke run (seconds)
#
# Knobs: COUNT (puzzles per class, and per public corpus, sampled every k-th line; default
# 2000), SEED (of the generated classes; default 1), ROUNDS (default 1: the runs made again
# ROUNDS times, rounds outermost, each round printing its own tables, for the run-to-run
# spread beside the intervals), CXX (tdoku's compiler: clang++ if present, else g++).
#
# The classes are made on the fly by `sudoku-bench generate` (recipes in datasets/README.md;
# the same SEED and COUNT give the same puzzles on any machine): clues 17-21, 22-26, 27-31,
# 32-36, 37-41 and 42-50, each with 0 solutions (givens that break no rule), 1, and 2+; and
# 34-35 clues with 2+ solutions.
# tdoku is built by scripts/build-tdoku.sh and loaded with `--solver tdoku=lib:...`, in a
# process of its own (it keeps its state in globals). For each mode (counting to 2, then
# stopping at the first solution) ONE `sudoku-bench run` times both over every corpus, one
# thread, one solve a puzzle (no --repeat), no node budget or timeout: their phases take
# turns chunk by chunk, so both see whatever the machine is doing. Each cell is then, from
# the per-puzzle rows of that run, `compare --between tdoku,fast`'s two figures as speed
# ratios, fast / tdoku (above 1: fast is faster):
#   typical: the geometric mean of per-puzzle ratios (tdoku's time / fast's);
#   throughput: tdoku's summed time / fast's (their puzzles/s/core ratio);
# each with its 95% interval (over the run's replicates: see docs/ci.md, `compare`).
set -euo pipefail
cd "$(dirname "$0")/.."

shared=../shared
tdoku_src=$shared/anchors/tdoku
if [ ! -d "$shared/datasets" ] || [ ! -f "$tdoku_src/src/solver_dpll_triad_simd.cc" ]; then
    echo "skipped: ../shared/datasets and ../shared/anchors/tdoku are needed beside the clone" >&2
    exit 0
fi

count=${COUNT:-2000}
seed=${SEED:-1}
rounds=${ROUNDS:-1}
lib=$(scripts/build-tdoku.sh)
compiler=$(cat "$lib.compiler")
echo "== building sudoku-bench (release)" >&2
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/sudoku-bench

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/tdoku-classes.sh
source scripts/tdoku-classes.sh

make_map

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
time_map "$work" "$rounds" tdoku,fast -s fast --solver "tdoku=lib:$lib:TdokuSolverDpllTriadSimd"
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$work" "$rounds" "${MODES[*]}" "$count" "$seed" "$commit" "$compiler" \
    "$load_before" "$load_after" "${CLASSES[@]}" -- "${sampled[@]}" <<'EOF'
import json, os, sys
from collections import Counter
work, rounds, modes, count, seed, commit, compiler, load_before, load_after = sys.argv[1:10]
rest = sys.argv[10:]
cut = rest.index("--")
classes = [c.split("|") for c in rest[:cut]]
public = [p.split("|") for p in rest[cut + 1:]]

def speed(ratio, ci):
    """fast / tdoku as a speed, from compare's time ratio fast / tdoku and its interval."""
    if ratio is None:
        return "-"
    text = f"{1 / ratio:.2f}"
    if ci:
        text += f" [{1 / ci[1]:.2f}, {1 / ci[0]:.2f}]"
    return text

def cells(rnd, mode):
    cmp = json.load(open(f"{work}/{rnd}-{mode}.cmp.json"))
    summary = json.load(open(f"{work}/{rnd}-{mode}.json"))
    wrong = Counter()
    for row in summary["rows"]:
        name = os.path.basename(row["corpus"])
        wrong[name] += row["mismatches"] + row["failures"]
    out = {}
    for row in cmp["rows"]:
        name = os.path.basename(row["corpus"])
        cell = (speed(row.get("time_ratio"), row.get("ci")) + " \\| "
                + speed(row.get("throughput_ratio"), row.get("throughput_ci")))
        if wrong[name]:
            cell += f" ({wrong[name]} wrong or failed answers)"
        out[name.removesuffix(".txt")] = cell
    return out, summary

for rnd in range(1, int(rounds) + 1):
    for mode in modes.split():
        out, summary = cells(rnd, mode)
        if rnd == 1 and mode == modes.split()[0]:
            m = summary["machine"]
            print(f"{m['cpu']}, {m['cores']} cores, {m['os']} {m['arch']}; load average "
                  f"{load_before} before, {load_after} after; one thread; "
                  f"{summary['date'][:10]}, commit {commit}; tdoku built with {compiler}; "
                  f"{count} puzzles a class, seed {seed}.")
            print()
        counting = "counting to 2" if mode == "2" else "stopping at the first solution"
        title = f"round {rnd}, " if int(rounds) > 1 else ""
        print(f"**{title}{counting}**: `fast` / tdoku as a speed (above 1: `fast` is faster), "
              "typical [95% interval] \\| throughput [95% interval]")
        print()
        print("| clues | 0 solutions (no rule broken) | 1 solution | 2+ solutions |")
        print("|---|---|---|---|")
        # A class's column is its solution count (the name's last character): a label
        # with fewer than three classes has "-" in the others' cells.
        column = {(l, name[-1]): name for l, name, _ in classes}
        for label in dict.fromkeys(c[0] for c in classes):
            row = [out.get(column.get((label, k)), "-") for k in "012"]
            print(f"| {label} | " + " | ".join(row) + " |")
        for label, name, _ in public:
            print(f"| {label} | - | {out.get(name, '-')} | - |")
        print()

# What each class holds: the clue counts the recipes gave.
print("Classes, made by `sudoku-bench generate --count N --seed S` with:")
print()
for label, name, options in classes:
    clues = Counter(sum(ch != "." for ch in line.strip())
                    for line in open(f"{work}/{name}.txt") if line.strip())
    values = sorted(clues.elements())
    spread = f"{values[0]}-{values[-1]} clues, median {values[len(values) // 2]}"
    solutions = {"0": "no solution", "1": "one solution", "2": "2+ solutions"}[name[-1]]
    print(f"- {label}, {solutions}: `{options}` ({spread})")
for label, name, every in public:
    with open(f"{work}/{name}.txt") as f:
        print(f"- {label}: {sum(1 for _ in f)} puzzles, one line in {every}")
EOF
