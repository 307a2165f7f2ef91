#!/usr/bin/env bash
# Two builds of `fast` over the whole map of scripts/vs-tdoku.sh (scripts/tdoku-classes.sh:
# clue count x solution count, the 34-35 class, samples of the public corpora), timed in ONE
# process on one pinned CPU: what a change to `fast` does to every class, not only to the
# ones it was made for. Prints a Markdown table on stdout.
#
#   scripts/fast-map-ab.sh OLD.so NEW.so     COUNT=1000 a class, ROUNDS=7 (a minute and a
#                                            half here)
#
# OLD.so and NEW.so are the two builds' exports of `fast` (libsudoku_bench_ffi.so, symbol
# sudoku_bench_fast): `cargo build --release -p sudoku-bench-ffi`, then copy
# target/release/libsudoku_bench_ffi.so away before building the other. Both are loaded
# `--in-process`, so no process or CPU lies between them; each mode (counting to 2, then
# stopping at 1) is one `run -s none` per round, one thread, one solve a puzzle, no node
# budget or timeout, their phases taking turns chunk by chunk. Each cell is NEW / OLD as a
# speed (above 1: NEW is faster) from `compare --between old,new`: typical (the geometric
# mean of per-puzzle ratios) | throughput (summed time over summed time), the median over
# the rounds, and in brackets the range of the rounds' typical figures.
#
# Every answer of both is checked against the built-in `fast` of the binary this script
# builds (solved untimed): any disagreement is printed and the script exits 1.
#
# Knobs: COUNT (puzzles a class; default 1000), SEED (default 1), ROUNDS (default 7).
# Run a build against a copy of itself first: that is the spread to read the figures
# against. On this project's AMD EPYC (2026-11-29, 7 rounds) the medians read 0.98 to 1.02
# typical and 0.97 to 1.05 throughput, while one round of the seven read 1.09 to 1.13 in
# most classes counting to 2: a state of the machine that one round can fall on, which is
# why the median of several is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
for lib in "$1" "$2"; do
    [ -f "$lib" ] || {
        echo "fast-map-ab: $lib: no such file" >&2
        exit 2
    }
done
old=$(realpath "$1")
new=$(realpath "$2")

shared=../shared
if [ ! -d "$shared/datasets" ]; then
    echo "skipped: ../shared/datasets is needed beside the clone (the map's public corpora)" >&2
    exit 0
fi
count=${COUNT:-1000}
seed=${SEED:-1}
rounds=${ROUNDS:-7}
echo "== building sudoku-bench (release)" >&2
cargo build --release --quiet -p sudoku-bench
bin=${CARGO_TARGET_DIR:-target}/release/sudoku-bench

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/tdoku-classes.sh
source scripts/tdoku-classes.sh
make_map

time_map "$work" "$rounds" old,new -s none --in-process old --in-process new \
    --solver "old=lib:$old:sudoku_bench_fast" --solver "new=lib:$new:sudoku_bench_fast"

python3 - "$work" "$rounds" "${MODES[*]}" "$count" "$seed" "$old" "$new" "${CLASSES[@]}" -- \
    "${sampled[@]}" <<'EOF'
import json, os, statistics, sys
work, rounds, modes, count, seed, old, new = sys.argv[1:8]
modes = modes.split()
rest = sys.argv[8:]
cut = rest.index("--")
names = [c.split("|")[1] for c in rest[:cut]] + [p.split("|")[1] for p in rest[cut + 1:]]
rounds = int(rounds)
cells, wrong, machine = {}, 0, None
for rnd in range(1, rounds + 1):
    for mode in modes:
        summary = json.load(open(f"{work}/{rnd}-{mode}.json"))
        machine = summary["machine"]
        for row in summary["rows"]:
            bad = row["mismatches"] + row["failures"]
            if bad:
                wrong += bad
                print(f"round {rnd}, counting to {mode}: {row['corpus']} {row['strategy']}: "
                      f"{row['mismatches']} answers unlike the built-in fast's, "
                      f"{row['failures']} failed", file=sys.stderr)
        for row in json.load(open(f"{work}/{rnd}-{mode}.cmp.json"))["rows"]:
            name = os.path.basename(row["corpus"]).removesuffix(".txt")
            # compare's ratios are new's time over old's: their inverse is a speed.
            cells.setdefault((name, mode), []).append(
                (1 / row["time_ratio"], 1 / row["throughput_ratio"]))

def cell(name, mode):
    got = cells.get((name, mode))
    if not got:
        return "-"
    typical = [t for t, _ in got]
    through = statistics.median(h for _, h in got)
    return (f"{statistics.median(typical):.3f} \\| {through:.3f} "
            f"[{min(typical):.2f}, {max(typical):.2f}]")

print(f"{machine['cpu']}, {machine['cores']} cores; {count} puzzles a class, seed {seed}; "
      f"{rounds} rounds; NEW {new} against OLD {old}.")
print()
print("NEW / OLD as a speed (above 1: NEW is faster): typical \\| throughput, the rounds' "
      "median [the rounds' typical range]")
print()
title = {"2": "counting to 2", "1": "stopping at 1"}
print("| corpus | " + " | ".join(title[m] for m in modes) + " |")
print("|---" * (len(modes) + 1) + "|")
for name in names:
    print(f"| {name} | " + " | ".join(cell(name, m) for m in modes) + " |")
sys.exit(1 if wrong else 0)
EOF
