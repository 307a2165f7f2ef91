#!/usr/bin/env bash
# The measurement of issue 42: do instruction counts (`run --measure instructions`) give a
# verdict that a busy machine cannot flip?
#
#   scripts/count-check.sh [RUNS]        (default 10; run from the repository, after
#                                         `cargo build --release`; needs cc and valgrind)
#
# Each of RUNS counting runs over CORPUS holds three copies of tests/solvers/backtrack.c's
# `extra_turns`: `a` and `b`, two byte-identical copies of the library doing no extra work,
# and `slow`, doing TURNS turns of a loop after each solve, TURNS chosen so that the loop
# adds 2% to `a`'s summed instructions (the loop's cost per turn counted by hand first: a
# run of 1000 turns against one of 0 on one puzzle). Per run:
#
#   - `compare --between a,b`: must give instructions ratio exactly 1 and exit 0;
#   - `compare --between a,slow`: must exit 1 (slower, past the 1% count threshold), and
#     the summed counts' ratio (`throughput_ratio`) must be 1.02 within 0.001.
#
# Then one counting run of `fast` alone over CORPUS, timed (the issue's bound: under a
# minute for 1,000 puzzles). BUSY=N starts N spinning neighbours for the whole check.
#
# Environment: BENCH (default target/release/sudoku-bench), CORPUS (default
# datasets/minimal.txt), BUSY (default 0).
set -euo pipefail

runs=${1:-10}
bench=${BENCH:-target/release/sudoku-bench}
corpus=${CORPUS:-datasets/minimal.txt}
busy=${BUSY:-0}
[[ -x $bench ]] || { echo "count-check: no $bench: cargo build --release first" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "count-check: no valgrind (apt-get install valgrind)" >&2; exit 2; }

work=$(mktemp -d)
spinners=()
cleanup() {
    for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 "$busy"); do
    sh -c 'while :; do :; done' &
    spinners+=($!)
done

cc -O2 -shared -fPIC tests/solvers/backtrack.c -o "$work/a.so"
cp "$work/a.so" "$work/b.so"
lib() { echo "$1=lib:$work/$2:extra_turns"; }
# The value of column NAME of a CSV's rows of strategy S, summed.
sum_of() {
    awk -F, -v s="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions") c = i; next }
        $3 == s { t += $c } END { printf "%d\n", t }' "$1"
}

# A turn's cost, by hand: one puzzle, 0 and 1000 turns.
awk '!/^#/ && n++ < 1' "$corpus" > "$work/one.txt"
"$bench" run "$work/one.txt" --measure instructions -s none --solver "$(lib t0 a.so)" \
    --solver "$(lib t1 a.so)" --solver-config t1=1000 -q -o "$work/one.csv"
per_turn=$(awk -v a="$(sum_of "$work/one.csv" t0)" -v b="$(sum_of "$work/one.csv" t1)" \
    'BEGIN { printf "%.3f\n", (b - a) / 1000 }')
"$bench" run "$corpus" --measure instructions -s none --solver "$(lib a a.so)" -q -o "$work/base.csv"
puzzles=$(awk -F, 'NR > 1 && $3 == "a" && $15 != ""' "$work/base.csv" | wc -l)
base=$(sum_of "$work/base.csv" a)
turns=$(awk -v s="$base" -v n="$puzzles" -v t="$per_turn" 'BEGIN { printf "%d\n", 0.02 * s / n / t + 0.5 }')
echo "a turn costs $per_turn instructions; a: $base instructions over $puzzles puzzles; slow: $turns turns a call"

identical=0 found=0 within=0
for r in $(seq 1 "$runs"); do
    "$bench" run "$corpus" --measure instructions -s none --solver "$(lib a a.so)" \
        --solver "$(lib b b.so)" --solver "$(lib slow a.so)" --solver-config "slow=$turns" \
        -q -o "$work/run.csv"
    code_same=0 code_slow=0
    "$bench" compare "$work/run.csv" --between a,b --format json > "$work/same.json" || code_same=$?
    "$bench" compare "$work/run.csv" --between a,slow --format json > "$work/slow.json" || code_slow=$?
    read -r same_ratio same_sum < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(repr(r["time_ratio"]), repr(r["throughput_ratio"]))' "$work/same.json")
    read -r slow_ratio slow_sum < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(repr(r["time_ratio"]), repr(r["throughput_ratio"]))' "$work/slow.json")
    [[ $code_same == 0 && $same_ratio == 1.0 && $same_sum == 1.0 ]] && identical=$((identical + 1))
    [[ $code_slow == 1 ]] && found=$((found + 1))
    python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - 1.02) <= 0.001 else 1)' "$slow_sum" \
        && within=$((within + 1))
    echo "run $r: a,b exit $code_same ratio $same_ratio (sums $same_sum); a,slow exit $code_slow ratio $slow_ratio (sums $slow_sum); load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "identical copies: ratio exactly 1 and exit 0 in $identical of $runs"
echo "2% more instructions: exit 1 in $found of $runs; summed counts 1.02 within 0.001 in $within of $runs"

start=$(date +%s.%N)
"$bench" run "$corpus" --measure instructions -s fast -q -o "$work/fast.csv"
echo "fast, $(awk -F, 'NR > 1' "$work/fast.csv" | wc -l) puzzles counted in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }') s"
start=$(date +%s.%N)
"$bench" run "$corpus" --measure instructions -s none --solver "$(lib a a.so)" -q -o "$work/lib.csv"
echo "a lib: solver (backtrack.c), $(awk -F, 'NR > 1' "$work/lib.csv" | wc -l) puzzles counted in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }') s"
echo "$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}'), $(nproc) cores, $busy spinning neighbour(s), load average $(cut -d' ' -f1-3 /proc/loadavg), valgrind $(valgrind --version)"
