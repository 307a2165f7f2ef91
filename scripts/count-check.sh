#!/usr/bin/env bash
# The measurement of issue 42: do instruction counts (`run --measure instructions`) give a
# verdict that a busy machine cannot flip?
#
#   scripts/count-check.sh [RUNS]        (default 10; run from the repository, after
#                                         `cargo build --release`; needs cc and valgrind)
#
# Each of RUNS counting runs over CORPUS holds three copies of tests/solvers/backtrack.c's
# `extra_turns` as a `lib:` solver: `a` and `b`, two byte-identical copies of the library
# doing no extra work, and `slow`, doing TURNS turns of a loop after each solve, TURNS
# chosen so that the loop adds 2% to `a`'s summed instructions (the loop's cost per turn
# counted by hand first: a run of 1000 turns against one of 0 on one puzzle); and the same
# three as `cmd:` solvers (tests/solvers/backtrack_cmd.c, its TURNS counted and chosen
# alike): `ca` and `cb`, two byte-identical copies of the program, and `cslow`. Per run and
# kind:
#
#   - `compare --between a,b` (`ca,cb`, each pair two builds from one source): must give instructions ratio exactly 1 and exit 0;
#   - `compare --between a,slow` (`ca,cslow`): must exit 1 (slower, past the 1% count
#     threshold), and the summed counts' ratio (`throughput_ratio`) must be 1.02 within
#     0.001.
#
# Then one counting run each of `fast`, of `a` and of `ca` alone over CORPUS, timed (the
# issue's bound: under a minute for 1,000 puzzles); and a creep of six 0.5% steps in counts,
# recorded in a history, which `history check` must find. BUSY=N starts N spinning neighbours
# for the whole check.
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

# Two builds of each, from the same source: the "two identical builds" of issue 42 (cc's
# output is the same, byte for byte: said below).
for copy in a b; do
    cc -O2 -shared -fPIC tests/solvers/backtrack.c -o "$work/$copy.so"
    cc -O2 tests/solvers/backtrack_cmd.c -o "$work/c$copy"
done
cmp -s "$work/a.so" "$work/b.so" && cmp -s "$work/ca" "$work/cb" \
    && echo "the two builds of each are byte-identical" || echo "the two builds of each differ"
lib() { echo "$1=lib:$work/$2:extra_turns"; }
cmd() { echo "$1=cmd:$work/$2 ${3:-0}"; }
# The value of column NAME of a CSV's rows of strategy S, summed.
sum_of() {
    awk -F, -v s="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions") c = i; next }
        $3 == s { t += $c } END { printf "%d\n", t }' "$1"
}

# A turn's cost, by hand: one puzzle, 0 and 1000 turns; then TURNS for 2% of the base.
awk '!/^#/ && n++ < 1' "$corpus" > "$work/one.txt"
"$bench" run "$work/one.txt" --measure instructions -s none --solver "$(lib t0 a.so)" \
    --solver "$(lib t1 a.so)" --solver-config t1=1000 --solver "$(cmd c0 ca 0)" \
    --solver "$(cmd c1 ca 1000)" -q -o "$work/one.csv"
"$bench" run "$corpus" --measure instructions -s none --solver "$(lib a a.so)" \
    --solver "$(cmd ca ca)" -q -o "$work/base.csv"
turns_for() { # BASE-STRATEGY ZERO ONE-THOUSAND
    local per_turn base puzzles
    per_turn=$(awk -v a="$(sum_of "$work/one.csv" "$2")" -v b="$(sum_of "$work/one.csv" "$3")" \
        'BEGIN { printf "%.3f\n", (b - a) / 1000 }')
    puzzles=$(awk -F, -v s="$1" 'NR > 1 && $3 == s && $15 != ""' "$work/base.csv" | wc -l)
    base=$(sum_of "$work/base.csv" "$1")
    echo "$1: a turn costs $per_turn instructions; $base instructions over $puzzles puzzles" >&2
    awk -v s="$base" -v n="$puzzles" -v t="$per_turn" 'BEGIN { printf "%d\n", 0.02 * s / n / t + 0.5 }'
}
turns=$(turns_for a t0 t1)
cturns=$(turns_for ca c0 c1)
echo "slow: $turns turns a call; cslow: $cturns turns a request"

# A comparison JSON's first row: its ratio (geometric mean) and its summed counts' ratio.
ratios() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]; print(repr(r["time_ratio"]), repr(r["throughput_ratio"]))' "$1"
}
declare -A identical=([lib]=0 [cmd]=0) found=([lib]=0 [cmd]=0) within=([lib]=0 [cmd]=0)
for r in $(seq 1 "$runs"); do
    "$bench" run "$corpus" --measure instructions -s none --solver "$(lib a a.so)" \
        --solver "$(lib b b.so)" --solver "$(lib slow a.so)" --solver-config "slow=$turns" \
        --solver "$(cmd ca ca)" --solver "$(cmd cb cb)" --solver "$(cmd cslow ca "$cturns")" \
        -q -o "$work/run.csv"
    line="run $r:"
    for kind in lib cmd; do
        if [[ $kind == lib ]]; then same=a,b slow=a,slow; else same=ca,cb slow=ca,cslow; fi
        code_same=0 code_slow=0
        "$bench" compare "$work/run.csv" --between "$same" --format json > "$work/same.json" || code_same=$?
        "$bench" compare "$work/run.csv" --between "$slow" --format json > "$work/slow.json" || code_slow=$?
        read -r same_ratio same_sum < <(ratios "$work/same.json")
        read -r slow_ratio slow_sum < <(ratios "$work/slow.json")
        [[ $code_same == 0 && $same_ratio == 1.0 && $same_sum == 1.0 ]] && identical[$kind]=$((identical[$kind] + 1))
        [[ $code_slow == 1 ]] && found[$kind]=$((found[$kind] + 1))
        python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - 1.02) <= 0.001 else 1)' "$slow_sum" \
            && within[$kind]=$((within[$kind] + 1))
        line="$line $same exit $code_same ratio $same_ratio (sums $same_sum); $slow exit $code_slow ratio $slow_ratio (sums $slow_sum);"
    done
    echo "$line load $(cut -d' ' -f1 /proc/loadavg)"
done
for kind in lib cmd; do
    echo "$kind: identical copies: ratio exactly 1 and exit 0 in ${identical[$kind]} of $runs"
    echo "$kind: 2% more instructions: exit 1 in ${found[$kind]} of $runs; summed counts 1.02 within 0.001 in ${within[$kind]} of $runs"
done

start=$(date +%s.%N)
"$bench" run "$corpus" --measure instructions -s fast -q -o "$work/fast.csv"
echo "fast, $(awk -F, 'NR > 1' "$work/fast.csv" | wc -l) puzzles counted in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }') s"
start=$(date +%s.%N)
"$bench" run "$corpus" --measure instructions -s none --solver "$(lib a a.so)" -q -o "$work/lib.csv"
echo "a lib: solver (backtrack.c), $(awk -F, 'NR > 1' "$work/lib.csv" | wc -l) puzzles counted in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }') s"
start=$(date +%s.%N)
"$bench" run "$corpus" --measure instructions -s none --solver "$(cmd ca ca)" -q -o "$work/cmd.csv"
echo "a cmd: solver (backtrack_cmd.c), $(awk -F, 'NR > 1' "$work/cmd.csv" | wc -l) puzzles counted in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }') s"
# A creep: one counting run of seven copies of `a`, the k-th (k = 0..6) doing as many turns
# after each solve as add k times 0.5% to `a`'s summed instructions, each recorded in a new
# history under a commit of its own (`history add --strategy ck=mine`); `history check`
# (count threshold 1%) must find the creep, each change `more`, and exit 1 since the first
# commit.
creep=()
for k in 0 1 2 3 4 5 6; do
    creep+=(--solver "$(lib "c$k" a.so)" --solver-config "c$k=$(awk -v t="$turns" -v k="$k" 'BEGIN { printf "%d\n", t / 4 * k + 0.5 }')")
done
"$bench" run "$corpus" --measure instructions -s none "${creep[@]}" -q -o "$work/creep.csv" \
    --summary "$work/creep.json"
commit() { printf '%010x%030x' "$(($1 + 1))" 0; }
for k in 0 1 2 3 4 5 6; do
    "$bench" history add "$work/creep.json" --strategy "c$k=mine" --commit "$(commit "$k")" \
        --time $((1700000000 + k)) --db "$work/creep.sqlite" > "$work/add.log" 2>&1 \
        || { cat "$work/add.log" >&2; exit 2; }
done
code_creep=0
"$bench" history check --db "$work/creep.sqlite" --since "$(commit 0)" > "$work/creep.txt" || code_creep=$?
echo "creep of six 0.5% steps: history check exit $code_creep; changes of mine's instructions:"
grep ' mine .*instructions' "$work/creep.txt" || echo "(none)"
echo "$(scripts/cpu-name.sh "$bench"), $(nproc) cores, $busy spinning neighbour(s), load average $(cut -d' ' -f1-3 /proc/loadavg), valgrind $(valgrind --version)"
