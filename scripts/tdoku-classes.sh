# The map of puzzles that scripts/vs-tdoku.sh and scripts/count-vs-tdoku.sh measure `fast`
# and tdoku over, and scripts/fast-map-ab.sh two builds of `fast`, sourced by all three:
# CLASSES (made by `sudoku-bench generate`) and PUBLIC (the shared corpora, sampled), and
# time_map, the timed runs of the two that time. Needs $shared set.
# shellcheck shell=bash disable=SC2034 # the arrays are for the scripts that source this
# label|file name|generate options. Few clues and one solution: clues removed while the
# solution stays unique (17-21: random removal rarely ends below 22, so these are mostly
# 21, and cost most of the script's time); more clues: cells kept at random, kept only
# with the class's count. No solution: one given added to a unique puzzle of one clue
# less; 17-21: one given changed instead (a unique puzzle of 20 clues or fewer is too rare
# to make this way).
CLASSES=(
    "17-21|17-21-0|--clues 17..21 --solutions none"
    "17-21|17-21-1|--clues 17..21"
    "17-21|17-21-2|--method keep --clues 17..21 --solutions many"
    "22-26|22-26-0|--clues 22..26 --solutions none --by add"
    "22-26|22-26-1|--clues 22..26"
    "22-26|22-26-2|--method keep --clues 22..26 --solutions many"
)
for range in 27..31 32..36 37..41 42..50; do
    label=${range/../-}
    CLASSES+=(
        "$label|$label-0|--method keep --clues $range --solutions none --by add"
        "$label|$label-1|--method keep --clues $range"
        "$label|$label-2|--method keep --clues $range --solutions many"
    )
done
# Many clues and still 2+ solutions: where issue 41 found `fast` furthest behind tdoku on
# the Intel Xeon machines (a solution found fast, then the search for a second).
CLASSES+=("34-35|34-35-2|--method keep --clues 34..35 --solutions many")
# label|file name|source: the shared corpora, every k-th puzzle to about COUNT.
PUBLIC=(
    "17-clue (public)|p-17|$shared/datasets/puzzles2_17_clue"
    "magictour top1465 (public)|p-top1465|$shared/datasets/puzzles3_magictour_top1465"
    "forum hardest 1905 11+ (public): the hardest|p-hardest|$shared/datasets/puzzles5_forum_hardest_1905_11+"
)

# make_map: writes every class ($count puzzles each, seed $seed, by $bin) and every public
# sample (about $count puzzles: every k-th line) into $work; sets `corpora` (their paths, in
# the order above) and `sampled` ("label|name|k" of each public sample).
make_map() {
    local class set label name source options every
    echo "== generating ${#CLASSES[@]} classes of $count puzzles each (seed $seed)" >&2
    corpora=()
    for class in "${CLASSES[@]}"; do
        IFS='|' read -r _ name options <<<"$class"
        # shellcheck disable=SC2086 # the class's options, split on purpose
        "$bin" generate --count "$count" --seed "$seed" $options --quiet --out "$work/$name.txt" 2>/dev/null
        corpora+=("$work/$name.txt")
    done
    sampled=()
    for set in "${PUBLIC[@]}"; do
        IFS='|' read -r label name source <<<"$set"
        grep -v -e '^#' -e '^[[:space:]]*$' "$source" >"$work/all.txt"
        every=$((($(wc -l <"$work/all.txt") + count - 1) / count))
        awk -v k="$every" '(NR - 1) % k == 0' "$work/all.txt" >"$work/$name.txt"
        corpora+=("$work/$name.txt")
        sampled+=("$label|$name|$every")
    done
}

# The modes every timed map run is made in: counting to 2, then stopping at the first solution.
MODES=(2 1)

# time_map WORK ROUNDS BETWEEN RUN_OPTIONS...: ROUNDS times, rounds outermost, for each of
# MODES one `$bin run` over every corpus of make_map with RUN_OPTIONS (the solvers), one
# thread, one solve a puzzle, no node budget or timeout, into WORK/ROUND-MODE.csv and its
# summary WORK/ROUND-MODE.json; then `compare --between BETWEEN` of that run into
# WORK/ROUND-MODE.cmp.json.
time_map() {
    local work=$1 rounds=$2 between=$3 round mode
    shift 3
    for round in $(seq 1 "$rounds"); do
        for mode in "${MODES[@]}"; do
            echo "== round $round/$rounds: every corpus, counting to $mode" >&2
            "$bin" run "${corpora[@]}" "$@" --threads 1 --max-nodes 0 --timeout 0 \
                --max-solutions "$mode" --quiet \
                --out "$work/$round-$mode.csv" --summary "$work/$round-$mode.json"
            # Exit 1 is a verdict (slower past the threshold somewhere, or a changed search),
            # not a failure.
            "$bin" compare "$work/$round-$mode.csv" --between "$between" \
                --allow-search-changes --format json --out "$work/$round-$mode.cmp.json" ||
                [ $? -eq 1 ]
        done
    done
}
