#!/usr/bin/env bash
# The campaign behind issue 14's "Done when": how often `compare` gives a wrong or a right
# verdict on this machine. Prints one count per experiment; every trial's CSVs and
# comparisons are kept under target/verdicts/ to look at afterwards.
#
#   TRIALS=20 scripts/verdicts.sh      the full campaign (the default; about 15-20 minutes)
#   TRIALS=3 scripts/verdicts.sh       a quick check that it works
#
# Experiments (a "trial" is one comparison):
#   aa-separate   the same binary, two separate runs of `-s fast,dlx` on magictour top1465,
#                 compared with one run per side (must be inconclusive: that is the point)
#                 and with --relative-to dlx; every other trial has a busy neighbour (one
#                 process spinning on a core) during one of the two runs. Counted: slower
#                 or faster verdicts (wrong ones).
#   inrun-aa      tests/solvers/backtrack.c loaded twice in one run, compare --between a,b:
#                 counted: not past the threshold (no change, or slower/faster not past
#                 threshold: no verdict that fails or claims a change).
#   inrun-ab      the same with b at configuration 10 (10% more work per puzzle): counted:
#                 slower, and intervals that hold 1.10.
#   multi-ab      scripts/ab.sh, 3 interleaved rounds per side, backtrack at configuration
#                 10 against 0: counted: slower; and multi-aa, 0 against 0: not past the
#                 threshold.
#
# Runs use one worker (-j 1): this machine has 2 cores shared with whatever else runs, and
# one worker leaves the other core to the neighbour, as a CI runner's does; with -j 2 every
# trial would be a fight with the spinning neighbour for both cores, which measures the
# scheduler rather than the verdicts. Each solve is timed 3 times (--repeat 3: a preempted
# solve does not stand), and chunks are tiny (--chunk-size 2) so that the phases of the
# two strategies alternate often and see the same machine.
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=${TRIALS:-20}
OUT=target/verdicts
TOP1465=../shared/datasets/puzzles3_magictour_top1465
RUN_OPTS=(-j 1 -q --timeout 0 --repeat 3 --chunk-size 2)

case "$TRIALS" in ''|*[!0-9]*|0) echo "verdicts.sh: TRIALS must be a whole number from 1" >&2; exit 2 ;; esac
command -v jq >/dev/null || { echo "verdicts.sh: needs jq" >&2; exit 2; }
command -v cc >/dev/null || { echo "verdicts.sh: needs a C compiler (cc)" >&2; exit 2; }
[ -f "$TOP1465" ] || { echo "verdicts.sh: $TOP1465 not found (scripts/fetch-corpora.sh)" >&2; exit 2; }

cargo build --release --locked --quiet
bin="${CARGO_TARGET_DIR:-target}/release/sudoku-bench"
rm -rf "$OUT"
mkdir -p "$OUT"
cc -O2 -shared -fPIC tests/solvers/backtrack.c -o "$OUT/backtrack.so"
lib="$OUT/backtrack.so"
# backtrack.c takes up to tens of milliseconds on the hardest of top1465: slices keep the
# campaign short. The first lines of the file are comments.
head -n 202 "$TOP1465" >"$OUT/top200.txt"
head -n 102 "$TOP1465" >"$OUT/top100.txt"

spinner=""
busy() { timeout 120 sh -c 'while :; do :; done' & spinner=$!; }
calm() { if [ -n "$spinner" ]; then kill "$spinner" 2>/dev/null || true; wait "$spinner" 2>/dev/null || true; spinner=""; fi; }
trap calm EXIT

# verdicts FILE: one verdict per row of a JSON comparison.
verdicts() { jq -r '.rows[] | select(.reference | not) | .verdict' "$1"; }
# compare_json OUT ARGS...: the comparison as JSON in OUT (its exit status is not a failure).
compare_json() { local out=$1; shift; "$bin" compare "$@" --format json >"$out" || true; }
# The verdicts that are neither slower nor faster beyond the threshold: what an A/A pair
# must get.
within='^(no_change|slower_not_past_threshold|faster_not_past_threshold)$'

declare -A count
add() { count[$1]=$(( ${count[$1]:-0} + $2 )); }

for ((t = 1; t <= TRIALS; t++)); do
    d="$OUT/trial-$t"
    mkdir -p "$d"
    echo "verdicts.sh: trial $t of $TRIALS" >&2

    # A/A, two separate runs; a busy neighbour during the first or second run every other trial.
    for r in 1 2; do
        if (( t % 2 == 0 )) && (( r == 1 + t / 2 % 2 )); then busy; fi
        "$bin" run "$TOP1465" -s fast,dlx "${RUN_OPTS[@]}" --out "$d/aa-$r.csv"
        calm
    done
    compare_json "$d/aa-default.json" "$d/aa-1.csv" "$d/aa-2.csv"
    compare_json "$d/aa-relative.json" "$d/aa-1.csv" "$d/aa-2.csv" --relative-to dlx
    for mode in default relative; do
        wrong=$(verdicts "$d/aa-$mode.json" | grep -cE '^(slower|faster)$' || true)
        add "aa-$mode-wrong" $(( wrong > 0 ))
        add "aa-$mode-inconclusive" $(( $(verdicts "$d/aa-$mode.json" | grep -c '^inconclusive$' || true) == 2 ))
    done

    # In-run A/A and A/B.
    for k in 0 10; do
        "$bin" run "$OUT/top200.txt" -s fast --solver "a=lib:$lib" --solver "b=lib:$lib" \
            --solver-config "b=$k" "${RUN_OPTS[@]}" --out "$d/inrun-$k.csv"
        compare_json "$d/inrun-$k.json" "$d/inrun-$k.csv" --between a,b
    done
    add inrun-aa-within "$(verdicts "$d/inrun-0.json" | grep -cE "$within" || true)"
    add inrun-ab-slower "$(verdicts "$d/inrun-10.json" | grep -c '^slower$' || true)"
    add inrun-ab-covers "$(jq '[.rows[] | select(.ci[0] <= 1.10 and 1.10 <= .ci[1])] | length' "$d/inrun-10.json")"

    # Several runs per side, interleaved by scripts/ab.sh.
    for k in 0 10; do
        scripts/ab.sh --rounds 3 --out "$d/multi-$k" \
            --old-args "--solver x=lib:$lib --solver-config x=0" \
            --new-args "--solver x=lib:$lib --solver-config x=$k" \
            --compare "--format json" "$bin" "$bin" -- \
            "$OUT/top100.txt" -s fast "${RUN_OPTS[@]}" >"$d/multi-$k.json" 2>"$d/multi-$k.log" || true
    done
    add multi-aa-within "$(jq -r '.rows[] | select(.strategy == "x") | .verdict' "$d/multi-0.json" | grep -cE "$within" || true)"
    add multi-ab-slower "$(jq -r '.rows[] | select(.strategy == "x") | .verdict' "$d/multi-10.json" | grep -c '^slower$' || true)"
done

n=$TRIALS
c() { echo "${count[$1]:-0}"; }
cat <<REPORT
verdicts over $n trials (machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)):
A/A separate runs, one per side (default):     slower/faster in $(c aa-default-wrong) of $n; inconclusive in $(c aa-default-inconclusive) of $n
A/A separate runs, --relative-to dlx:          slower/faster in $(c aa-relative-wrong) of $n
in-run A/A (--between a,b, same solver):       not past the threshold in $(c inrun-aa-within) of $n
in-run A/B (b does 10% more work):             slower in $(c inrun-ab-slower) of $n; interval holds 1.10 in $(c inrun-ab-covers) of $n
3 runs per side, interleaved, 10% more work:   slower in $(c multi-ab-slower) of $n
3 runs per side, interleaved, same solver:     not past the threshold in $(c multi-aa-within) of $n
(per-trial CSVs and comparisons: $OUT/trial-*/)
REPORT
