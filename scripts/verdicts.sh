#!/usr/bin/env bash
# Calibration of the in-run comparison (`run` two solvers, `compare --between a,b`) on the
# machine it runs on: how often it calls a change where there is none, how often its interval
# holds the true ratio, and how often it finds a known slowdown. One table row per (solver
# kind, workers, load); every trial's CSV and comparisons are kept under target/verdicts/.
#
#   scripts/verdicts.sh                     20 trials a cell (about 25 minutes on 2 cores)
#   TRIALS=3 scripts/verdicts.sh            a quick look
#   KINDS="lib cmd" JOBS=1 LOADS=idle ...   part of the map
#   CHUNK=16 scripts/verdicts.sh            the runs' --chunk-size (default 4)
#
# Solver kinds (a: the baseline; b: the same code; b10: the same code 10% slower):
#   builtin  the built-in `fast` against its own export (libsudoku_bench_ffi.so) loaded into
#            sudoku-bench's threads (--in-process), where the built-in runs: A/A only, as
#            no built-in can be slowed
#   builtin-isolated  the same with the export in worker processes (the default for lib:):
#            not like with like (docs/ci.md#like-with-like); not in the default map, run it
#            to see what the kinds of process differ by here
#   lib      tests/solvers/backtrack.c as two byte-identical copies of the library, each in
#            worker processes of its own (the default); b10 spins 10% of each solve
#   inproc   the same, both loaded into sudoku-bench's own threads (--in-process)
#   cmd      tests/solvers/spin.c, the same solver as a program (`cmd:`), two copies
# Workers: -j 1 and -j $(nproc). Load: idle (whatever else runs here), and busy (one process
# spinning on a core for the whole trial).
#
# Counted per cell, over TRIALS comparisons each:
#   A/A past threshold   slower or faster verdicts for identical code (wrong ones)
#   A/A holds 1          intervals that hold 1, the true ratio of identical code
#   A/A run spread       how far identical code's runs move apart beyond what the run's
#                        replicates show (compare's --run-spread, which widens the intervals
#                        above by the default; measured from the intervals without it)
#   10% slower           `slower` verdicts for b10
#   holds true           b10's intervals that hold the true ratio, taken as the median of
#                        the cell's b10 ratios (a spin of 10% of a solve is not exactly 10%
#                        of what is timed: the clock's reads and, for cmd:, the pipe)
# Runs use --repeat 3 and --chunk-size $CHUNK (phases alternate every CHUNK puzzles) and the
# run's defaults otherwise: workers pinned, 8 replicates.
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=${TRIALS:-20}
KINDS=${KINDS:-builtin lib inproc cmd}
JOBS=${JOBS:-1 $(nproc)}
LOADS=${LOADS:-idle busy}
OUT=target/verdicts
HARDEST=../shared/datasets/puzzles5_forum_hardest_1905_11+
CHUNK=${CHUNK:-4}
RUN_OPTS=(-q --timeout 0 --repeat 3 --chunk-size "$CHUNK")

case "$TRIALS" in ''|*[!0-9]*|0) echo "verdicts.sh: TRIALS must be a whole number from 1" >&2; exit 2 ;; esac
case "$CHUNK" in ''|*[!0-9]*|0) echo "verdicts.sh: CHUNK must be a whole number from 1" >&2; exit 2 ;; esac
for kind in $KINDS; do
    case $kind in builtin|builtin-isolated|lib|inproc|cmd) ;;
        *) echo "verdicts.sh: no kind $kind (builtin, builtin-isolated, lib, inproc, cmd)" >&2; exit 2 ;;
    esac
done
command -v jq >/dev/null || { echo "verdicts.sh: needs jq" >&2; exit 2; }
command -v cc >/dev/null || { echo "verdicts.sh: needs a C compiler (cc)" >&2; exit 2; }

# The commit the binary is built from, taken now: a map takes long enough for HEAD to move.
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src crates Cargo.toml Cargo.lock || echo "+changes")
cargo build --release --locked --quiet
target="${CARGO_TARGET_DIR:-target}/release"
bin="$target/sudoku-bench"
rm -rf "$OUT"
mkdir -p "$OUT"
cc -O2 -shared -fPIC tests/solvers/backtrack.c -o "$OUT/a.so"
cp "$OUT/a.so" "$OUT/b.so"
cc -O2 tests/solvers/spin.c -o "$OUT/spin"
# `fast` takes microseconds on the generated puzzles: the forum's hardest give it tens, where
# a phase is long enough to time. backtrack.c takes up to milliseconds there: minimal.txt.
if [ -f "$HARDEST" ]; then
    awk '!/^#/ { print; if (++n == 5000) exit }' "$HARDEST" >"$OUT/hardest.txt"
    fast_corpus=$OUT/hardest.txt
else
    echo "verdicts.sh: $HARDEST not found; builtin runs on datasets/minimal.txt" >&2
    fast_corpus=datasets/minimal.txt
fi

spinner=""
busy() { timeout 3600 sh -c 'while :; do :; done' & spinner=$!; }
calm() { if [ -n "$spinner" ]; then kill "$spinner" 2>/dev/null || true; wait "$spinner" 2>/dev/null || true; spinner=""; fi; }
trap calm EXIT

# trial KIND SIDE J CSV: one run of KIND with b as SIDE (b or b10).
trial() {
    local kind=$1 side=$2 j=$3 csv=$4 config=0
    [ "$side" = b10 ] && config=10
    case $kind in
        builtin|builtin-isolated)
            local inside=()
            [ "$kind" = builtin ] && inside=(--in-process a)
            "$bin" run "$fast_corpus" -s fast --solver "a=lib:$target/libsudoku_bench_ffi.so:sudoku_bench_fast" \
                "${inside[@]}" "${RUN_OPTS[@]}" -j "$j" -o "$csv" 2>/dev/null ;;
        lib) "$bin" run datasets/minimal.txt -s none --solver "a=lib:$OUT/a.so" --solver "b=lib:$OUT/b.so" \
                 --solver-config "b=$config" "${RUN_OPTS[@]}" -j "$j" -o "$csv" ;;
        inproc) "$bin" run datasets/minimal.txt -s none --solver "a=lib:$OUT/a.so" --solver "b=lib:$OUT/b.so" \
                    --solver-config "b=$config" --in-process a --in-process b "${RUN_OPTS[@]}" -j "$j" -o "$csv" ;;
        cmd) "$bin" run datasets/minimal.txt -s none --solver "a=cmd:$OUT/spin 0" --solver "b=cmd:$OUT/spin $config" \
                 "${RUN_OPTS[@]}" -j "$j" -o "$csv" ;;
    esac
}

# The built-in is named `fast` and its export `a`; the others a and b.
builtin_kind() { case $1 in builtin|builtin-isolated) return 0 ;; *) return 1 ;; esac; }
pair_of() { if builtin_kind "$1"; then echo "fast,a"; else echo "a,b"; fi; }

rows=()
for kind in $KINDS; do
    for j in $JOBS; do
        for load in $LOADS; do
            cell="$kind-j$j-$load"
            mkdir -p "$OUT/$cell"
            sides=(b)
            builtin_kind "$kind" || sides=(b b10)
            loads=()
            for ((t = 1; t <= TRIALS; t++)); do
                echo "verdicts.sh: $cell trial $t of $TRIALS" >&2
                loads+=("$(cut -d' ' -f1 /proc/loadavg)")
                for side in "${sides[@]}"; do
                    [ "$load" = busy ] && busy
                    trial "$kind" "$side" "$j" "$OUT/$cell/$side-$t.csv"
                    calm
                    "$bin" compare "$OUT/$cell/$side-$t.csv" --between "$(pair_of "$kind")" --format json \
                        >"$OUT/$cell/$side-$t.json" || true
                    # Identical code's interval over its replicates alone, to measure the
                    # run spread with.
                    if [ "$side" = b ]; then
                        "$bin" compare "$OUT/$cell/b-$t.csv" --between "$(pair_of "$kind")" --format json \
                            --run-spread 0 >"$OUT/$cell/b-$t.replicates.json" || true
                    fi
                done
            done
            rowsof() { jq -c '.rows[] | select(.reference | not) | [.time_ratio, .ci[0], .ci[1], .verdict]' $(seq -f "$OUT/$cell/$1-%g.json" "$TRIALS"); }
            # The run spread: how far identical code's runs move apart beyond what their
            # replicates' intervals allow, sqrt(mean(ln r)^2 - mean(se^2)) over the trials,
            # with se = ln(hi / lo) / (2 t), t Student's for 8 replicates (7 degrees of
            # freedom, the run's default) at 95%; 0 when the replicates already hold it.
            spread=$(jq -rs '[.[] | .rows[] | select(.reference | not) | select(.replicates == 8)
                             | [(.time_ratio | log), ((.ci[1] / .ci[0]) | log) / (2 * 2.365)]]
                            | if length == 0 then "-" else
                              ((map(.[0] * .[0]) | add / length) - (map(.[1] * .[1]) | add / length))
                              | if . > 0 then sqrt * 100000 | round / 1000 | "\(.)%" else "0%" end end' \
                         "$OUT/$cell"/b-*.replicates.json)
            aa_wrong=$(rowsof b | grep -cE '"(slower|faster)"\]$' || true)
            aa_holds=$(rowsof b | jq -s '[.[] | select(.[1] <= 1 and 1 <= .[2])] | length')
            aa_range=$(rowsof b | jq -rs 'map(.[0]) | "\(min*1000|round/1000)-\(max*1000|round/1000)"')
            if builtin_kind "$kind"; then
                ab="| - | - | -"
            else
                truth=$(rowsof b10 | jq -s 'map(.[0]) | sort | .[length/2|floor]')
                slower=$(rowsof b10 | grep -c '"slower"\]$' || true)
                holds=$(rowsof b10 | jq -s --argjson r "$truth" '[.[] | select(.[1] <= $r and $r <= .[2])] | length')
                ab="| $slower of $TRIALS | $(printf '%.3f' "$truth") | $holds of $TRIALS"
            fi
            # The machine's 1-minute load average at the trials' starts (other tenants'
            # work, and the spinner's in a busy cell): what "idle" meant here.
            avg=$(printf '%s\n' "${loads[@]}" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }')
            rows+=("| $kind | $j | $load ($avg) | $aa_wrong of $TRIALS | $aa_holds of $TRIALS | $aa_range | $spread $ab |")
            printf '%s\n' "${rows[-1]}" >&2
        done
    done
done

cat <<REPORT
$(date -u +%Y-%m-%d), $(scripts/cpu-name.sh "$bin"), $(nproc) CPUs, commit $commit, TRIALS=$TRIALS, CHUNK=$CHUNK
| kind | -j | load (load average) | A/A past threshold | A/A holds 1 | A/A ratios | A/A run spread | 10% slower found | true ratio | holds true |
|---|---:|---|---:|---:|---|---:|---:|---:|---:|
$(printf '%s\n' "${rows[@]}")
REPORT
