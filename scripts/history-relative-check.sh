#!/usr/bin/env bash
# The measurement of issue 37, point 5: does a history recorded relative to a reference
# strategy of the same run see a 10% step that the machine's drift hides?
#
#   scripts/history-relative-check.sh [TRIES]      (default 5; run from the repository)
#
# Each try is a history of 12 commits, each commit ONE real run of `fast` and three copies of
# tests/solvers/backtrack.c (`r`, `b` and `c`) over a slice of magictour top1465, recorded with
# `history add --relative-to REFERENCE`. From the 7th commit on `b` does 10% more work per
# puzzle (`--solver-config b=10`); `c` never changes: a flat series of 12 in the same runs.
# `r` never changes either: a fixed build of the solver itself, the reference a solver's
# author keeps in the run (REFERENCE=r, the default); REFERENCE=fast takes the built-in
# strategy instead, a reference of another kind. Then `history check` with its default
# knobs (p-value 0.01, minimal change 5%). Counted per try:
#
#   - the step named: a `b / REFERENCE` relative-time change at commits 6..7, slower;
#   - the flat series quiet: no change at all on `c / REFERENCE`;
#   - the same two on the in-run comparisons recorded beside each summary (`compare
#     --between r,b --between r,c --format json`): series `r -> b` and `r -> c`, measure
#     `time ratio`, each a per-puzzle paired ratio over the run's replicates;
#   - for comparison, the same two on the absolute series (`b` and `c` median rate).
#
# Environment: BENCH (default target/release/sudoku-bench, built already), TOP1465 (default
# ../shared/datasets/puzzles3_magictour_top1465, read only), PUZZLES (the slice's length,
# default 80), CHUNK (the run's --chunk-size, default 1: the strategies take turns every
# puzzle, so each puzzle's solves are paired in time; 16 was the default before), OUT (a directory to keep the histories and summaries in; default a temporary
# one, removed). Needs cc. About 1-2 s a run on a 2-core machine: 12 runs a try.
set -euo pipefail

tries=${1:-5}
bench=${BENCH:-target/release/sudoku-bench}
top1465=${TOP1465:-../shared/datasets/puzzles3_magictour_top1465}
puzzles=${PUZZLES:-80}
reference=${REFERENCE:-r}

[[ -x $bench ]] || { echo "history-relative-check: no $bench: cargo build --release first" >&2; exit 2; }
[[ -r $top1465 ]] || { echo "history-relative-check: cannot read $top1465 (set TOP1465)" >&2; exit 2; }
[[ $tries =~ ^[1-9][0-9]*$ ]] || { echo "history-relative-check: TRIES must be a positive number" >&2; exit 2; }

if [[ -n ${OUT:-} ]]; then
    work=$OUT
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

cc -O2 -shared -fPIC tests/solvers/backtrack.c -o "$work/backtrack.so"
# A slice, not a copy in the repository: the corpus stays where it is shared.
# (awk, not grep | head: head's early exit would fail the pipe under pipefail.)
awk -v n="$puzzles" '!/^#/ && taken++ < n' "$top1465" > "$work/top.txt"

# The hash of commit I of try T: its first ten digits are what check prints.
sha() { printf '%02x%02xc0ffee%030d' "$1" "$2" 0; }

step_named=0 flat_quiet=0 abs_step_named=0 abs_flat_quiet=0 ab_step_named=0 ab_flat_quiet=0
start=$SECONDS
for t in $(seq 1 "$tries"); do
    db="$work/try$t.sqlite"
    rm -f "$db"
    for i in $(seq 0 11); do
        extra=0
        (( i >= 6 )) && extra=10
        summary="$work/try$t-$i.json"
        # --chunk-size (CHUNK, 1): the strategies take turns every puzzle, so a
        # neighbour's burst falls on all of them; --repeat 3 keeps each puzzle's fastest
        # of three solves, leaving out most preemptions.
        "$bench" run "$work/top.txt" -s fast --solver "r=lib:$work/backtrack.so" \
            --solver "b=lib:$work/backtrack.so" --solver "c=lib:$work/backtrack.so" \
            --solver-config "b=$extra" --chunk-size "${CHUNK:-1}" --repeat 3 -j 1 -q -o "$work/run.csv" \
            --summary "$summary" 2>/dev/null
        "$bench" compare "$work/run.csv" --between r,b --between r,c --format json \
            > "$work/try$t-$i-ab.json" 2>/dev/null || (( $? == 1 ))
        rm -f "$work/run.csv"
        "$bench" history add "$summary" "$work/try$t-$i-ab.json" --commit "$(sha "$t" "$i")" \
            --time $((1700000000 + i)) --relative-to "$reference" --db "$db" 2>/dev/null
    done
    status=0
    out=$("$bench" history check --db "$db") || status=$?
    (( status <= 1 )) || { echo "$out" >&2; exit 2; }
    range="$(sha "$t" 5 | cut -c1-10)..$(sha "$t" 6 | cut -c1-10)"
    named() { grep -E "^\S+ +$1 +$2 " <<<"$out" | grep -F "$range" | grep -q slower; }
    quiet() { ! grep -qE "^\S+ +$1 +$2 " <<<"$out"; }
    verdict=""
    if named "b / $reference" 'relative time'; then step_named=$((step_named + 1)); verdict+=" step named;"; else verdict+=" step NOT named;"; fi
    if quiet "c / $reference" 'relative time'; then flat_quiet=$((flat_quiet + 1)); verdict+=" flat quiet;"; else verdict+=" flat RAISED;"; fi
    if named 'r -> b' 'time ratio'; then ab_step_named=$((ab_step_named + 1)); verdict+=" in-run step named;"; else verdict+=" in-run step NOT named;"; fi
    if quiet 'r -> c' 'time ratio'; then ab_flat_quiet=$((ab_flat_quiet + 1)); verdict+=" in-run flat quiet;"; else verdict+=" in-run flat RAISED;"; fi
    if named 'b' 'median rate'; then abs_step_named=$((abs_step_named + 1)); fi
    if quiet 'c' 'median rate'; then abs_flat_quiet=$((abs_flat_quiet + 1)); fi
    echo "try $t:$verdict ($((SECONDS - start)) s)"
    grep -E 'relative time|median rate|time ratio' <<<"$out" | sed 's/^/    /' || true
done

echo "relative to $reference: a 10% step at the 7th commit named at 6..7 in $step_named of $tries; a flat series of 12 raised nothing in $flat_quiet of $tries"
echo "in-run comparisons (time ratio), same runs: the step named at 6..7 in $ab_step_named of $tries; the flat series raised nothing in $ab_flat_quiet of $tries"
echo "absolute (median rate), same runs: the step named at 6..7 in $abs_step_named of $tries; the flat series raised nothing in $abs_flat_quiet of $tries"
echo "$(( SECONDS - start )) s, $puzzles puzzles of $(basename "$top1465"), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
