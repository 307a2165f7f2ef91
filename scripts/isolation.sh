#!/usr/bin/env bash
# What isolating a `lib:` solver costs and gives, measured with tdoku (unmodified, through
# its C ABI) on the shared corpora; prints Markdown for docs/measurements.md.
#
#   scripts/isolation.sh            (ROUNDS=3 by default)
#
# 1. Times: per corpus, one `sudoku-bench run` on one thread with tdoku twice, in its own
#    process (the default) and in the tool's (--in-process), their phases interleaved
#    chunk by chunk; `compare --between` gives the geometric mean of the per-puzzle time
#    ratios and its verdict at 5%.
# 2. Answers: per corpus, tdoku isolated on two workers, --strict: its mismatches and
#    failures (in-process on two workers its globals are shared; see the summary's).
# 3. Scaling: the 17-clue corpus on one worker and on two, ROUNDS times alternately; the
#    median of each one's wall puzzles/s (`fast`, in the same runs, as a control: what
#    the machine gives a solver that scales).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
if [ ! -d "$shared/datasets" ]; then
    echo "skipped: ../shared/datasets is needed beside the clone" >&2
    exit 0
fi
lib=$(scripts/build-tdoku.sh) || exit 0
rounds=${ROUNDS:-3}
cargo build --release --quiet
bin=target/release/sudoku-bench
tdoku="lib:$lib:TdokuSolverDpllTriadSimd"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CORPORA=(puzzles2_17_clue puzzles3_magictour_top1465 "puzzles5_forum_hardest_1905_11+")

echo "| corpus | isolated / in-process, per puzzle (95% CI) | verdict at 5% | mismatches and failures on 2 workers |"
echo "|---|---:|---|---:|"
for c in "${CORPORA[@]}"; do
    echo "== $c: times" >&2
    "$bin" run "$shared/datasets/$c" -s fast --solver "td=$tdoku" --solver "tdi=$tdoku" \
        --in-process tdi -j 1 --max-nodes 0 --timeout 0 --quiet --out "$work/times.csv" 2>/dev/null
    "$bin" compare --between tdi,td "$work/times.csv" --format json >"$work/cmp.json" || true
    echo "== $c: answers on 2 workers" >&2
    "$bin" run "$shared/datasets/$c" -s fast --solver "td=$tdoku" -j 2 --strict --quiet \
        --out /dev/null --summary "$work/answers.json" 2>/dev/null || true
    python3 - "$c" "$work/cmp.json" "$work/answers.json" <<'PY'
import json, sys
corpus, cmp, answers = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
v = cmp["rows"][0]
td = next(r for r in answers["rows"] if r["strategy"] == "td")
lo, hi = v["ci"]
# The verdict as compare's table words it: slower_not_past_threshold is "slower, not past threshold".
verdict = v['verdict'].replace('_not_', ', not_').replace('_', ' ')
print(f"| {corpus} | {v['time_ratio']:.3f}x ({lo:.3f} .. {hi:.3f}) | {verdict} | {td['mismatches'] + td['failures']} |")
PY
done

echo
echo "== scaling on 17-clue, $rounds rounds" >&2
for r in $(seq 1 "$rounds"); do
    for j in 1 2; do
        "$bin" run "$shared/datasets/puzzles2_17_clue" -s fast --solver "td=$tdoku" -j "$j" \
            --max-nodes 0 --timeout 0 --quiet --out /dev/null --summary "$work/scale-$j-$r.json" 2>/dev/null
    done
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def wall(j, r, s):
    d = json.load(open(f"{work}/scale-{j}-{r}.json"))
    return next(x for x in d["rows"] if x["strategy"] == s)["wall_puzzles_per_s"]
m = json.load(open(f"{work}/scale-1-1.json"))["machine"]
print(f"17-clue, wall puzzles/s, median of {rounds} rounds; {m['cpu']}, {m['cores']} cores:")
print()
print("| solver | 1 worker | 2 workers | 2 / 1 |")
print("|---|---:|---:|---:|")
for s, label in (("td", "tdoku, isolated"), ("fast", "`fast` (control)")):
    one = statistics.median(wall(1, r, s) for r in range(1, rounds + 1))
    two = statistics.median(wall(2, r, s) for r in range(1, rounds + 1))
    print(f"| {label} | {one:,.0f} | {two:,.0f} | {two / one:.2f}x |")
PY
