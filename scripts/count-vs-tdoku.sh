#!/usr/bin/env bash
# `fast` against tdoku by exact counts, not times: per puzzle, the instructions each solver
# executes and the branches cachegrind's model mispredicts, over the map of
# scripts/vs-tdoku.sh (scripts/tdoku-classes.sh), counting to 2 and stopping at 1. Counts
# do not move from run to run, nor between x86-64 machines with AVX2 for the same builds
# (Valgrind passes AVX2 through but not AVX-512, so both solvers take their AVX2 paths:
# tdoku is built here with -march=x86-64-v3, and `fast` picks its x86-64-v3 path at run
# time); tdoku's depend on its compiler. The mispredicts are a model's, a hint where real
# branch predictors (which differ between AMD and Intel) may lose time.
#
#   scripts/count-vs-tdoku.sh            COUNT=1000 puzzles a class (about 90 s here)
#
# Knobs: COUNT, SEED (as vs-tdoku.sh), CXX (tdoku's compiler, as scripts/build-tdoku.sh,
# which builds it here with MARCH=x86-64-v3).
# Each solver is called through tdoku's C signature by a small C driver (below) that
# reads a corpus and solves each line once; the driver's start-up (loading the library) is
# counted on an empty corpus and taken off, its reading of each line stays in both counts.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi

shared=../shared
if [ ! -d "$shared/datasets" ] || [ ! -f "$shared/anchors/tdoku/src/solver_dpll_triad_simd.cc" ]; then
    echo "skipped: ../shared/datasets and ../shared/anchors/tdoku are needed beside the clone" >&2
    exit 0
fi
if ! command -v valgrind >/dev/null; then
    echo "count-vs-tdoku: valgrind not found (Debian: apt-get install valgrind)" >&2
    exit 2
fi
count=${COUNT:-1000}
seed=${SEED:-1}
tdoku=$(MARCH=x86-64-v3 scripts/build-tdoku.sh)
echo "== building sudoku-bench and its library (release)" >&2
cargo build --release --quiet -p sudoku-bench -p sudoku-bench-ffi
bin=${CARGO_TARGET_DIR:-target}/release/sudoku-bench
ffi=${CARGO_TARGET_DIR:-target}/release/libsudoku_bench_ffi.so
driver=target/tdoku/count-driver
cc -O2 -x c -o "$driver" - -ldl <<'C'
/* count-driver LIB SYMBOL FILE LIMIT: solves every line of FILE once (the map's lines are
   81 cells; shorter ones are skipped); prints the lines solved and the solutions found. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef size_t (*solve_fn)(const char *, size_t, uint32_t, char *, size_t *);
int main(int argc, char **argv) {
    if (argc != 5) return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    solve_fn solve = (solve_fn)dlsym(lib, argv[2]);
    if (!solve) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    FILE *in = fopen(argv[3], "r");
    if (!in) { perror(argv[3]); return 2; }
    size_t limit = strtoul(argv[4], 0, 10), guesses, found = 0, solved = 0;
    char line[256], solution[82];
    while (fgets(line, sizeof line, in)) {
        if (strlen(line) < 81) continue;
        line[81] = 0;
        found += solve(line, limit, 0, solution, &guesses);
        solved++;
    }
    printf("%zu %zu\n", solved, found);
    return 0;
}
C

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/tdoku-classes.sh
source scripts/tdoku-classes.sh
make_map
: >"$work/empty.txt"

# counts SOLVER FILE LIMIT: "instructions branches mispredicts lines solutions" of one pass.
counts() {
    local lib symbol report
    case $1 in
        fast) lib=$ffi symbol=sudoku_bench_fast ;;
        tdoku) lib=$tdoku symbol=TdokuSolverDpllTriadSimd ;;
    esac
    report=$(valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
        --cachegrind-out-file=/dev/null "$driver" "$lib" "$symbol" "$2" "$3" 2>&1)
    # A driver that failed prints no count: said, with Valgrind's report; the script stops
    # after the loop (this runs in a command substitution, where set -e does not reach).
    awk '/I *refs:/ {gsub(",", "", $4); i = $4} /Branches:/ {gsub(",", "", $3); b = $3}
         /Mispredicts:/ {gsub(",", "", $3); m = $3} /^[0-9]+ [0-9]+$/ {s = $0}
         END {if (i == "" || b == "" || m == "" || s == "") exit 1; print i, b, m, s}' \
        <<<"$report" || {
        echo "count-vs-tdoku: $1 on $2 gave no counts:" >&2
        echo "$report" >&2
        : >"$work/failed"
    }
}

echo "== counting (valgrind $(valgrind --version | sed 's/valgrind-//'))" >&2
{
    for solver in fast tdoku; do
        echo "base $solver - $(counts "$solver" "$work/empty.txt" 2)"
    done
    for limit in 2 1; do
        for corpus in "${corpora[@]}"; do
            for solver in fast tdoku; do
                echo "$limit $solver $(basename "$corpus" .txt) $(counts "$solver" "$corpus" "$limit")"
            done
        done
    done
} >"$work/counts.txt"
if [ -e "$work/failed" ]; then
    exit 2
fi

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
builds="tdoku by $(cat "$tdoku.compiler"); $(rustc -V); $(valgrind --version)"
python3 - "$work" "$commit" "$builds" "$count" "$seed" "${CLASSES[@]}" -- "${sampled[@]}" <<'PY'
import sys
work, commit, builds, count, seed = sys.argv[1:6]
rest = sys.argv[6:]
cut = rest.index("--")
classes = [c.split("|") for c in rest[:cut]]
public = [p.split("|") for p in rest[cut + 1:]]
base, rows = {}, {}
for line in open(f"{work}/counts.txt"):
    limit, solver, name, *numbers = line.split()
    numbers = [int(n) for n in numbers]
    if limit == "base":
        base[solver] = numbers
    else:
        rows[(limit, solver, name)] = numbers

def cell(limit, name):
    fast, tdoku = rows[(limit, "fast", name)], rows[(limit, "tdoku", name)]
    if fast[4] != tdoku[4]:
        return f"solutions differ: {fast[4]} and {tdoku[4]}"
    lines = fast[3]
    f = [(a - b) / lines for a, b in zip(fast[:3], base["fast"])]
    t = [(a - b) / lines for a, b in zip(tdoku[:3], base["tdoku"])]
    return (f"{f[0]:,.0f} / {t[0]:,.0f} = {f[0] / t[0]:.2f} \\| "
            f"{f[2]:,.1f} / {t[2]:,.1f} = {f[2] / t[2]:.2f}")

print(f"Per puzzle, `fast` / tdoku (below 1: `fast` does less): instructions \\| branches "
      f"mispredicted (cachegrind's model). Commit {commit}; {builds}; tdoku -O3 "
      f"-march=x86-64-v3; {count} puzzles a class, seed {seed}.")
print()
for limit in ("2", "1"):
    mode = "counting to 2" if limit == "2" else "stopping at the first solution"
    print(f"**{mode}**")
    print()
    print("| clues | 0 solutions | 1 solution | 2+ solutions |")
    print("|---|---|---|---|")
    # A class's column is its solution count (the name's last character).
    column = {(l, name[-1]): name for l, name, _ in classes}
    for label in dict.fromkeys(c[0] for c in classes):
        cells = [cell(limit, column[(label, k)]) if (label, k) in column else "-" for k in "012"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    for label, name, _ in public:
        print(f"| {label} | - | {cell(limit, name)} | - |")
    print()
PY
