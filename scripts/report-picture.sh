#!/usr/bin/env bash
# Makes docs/report.png, the picture of a report that README.md shows: every strategy over
# the shared corpora, written as an HTML report (`run --report`) and rendered by headless
# Chromium (scripts/browser.sh, which installs it when it can).
#
#   scripts/report-picture.sh [OUT.png [HEIGHT]]     (default docs/report.png, 3200)
#
# The run: magictour top1465 whole, and every 100th puzzle of the 17-clue and forum-hardest
# lists (about 490 each: their slow strategies would otherwise take hours), with a node
# budget of 100,000 (so the slow strategies abort some puzzles and the report shows PAR-2),
# one thread per core. Most of its time is `hashset`'s.
# The picture is the top HEIGHT pixels of the report, 1200 CSS pixels wide (on a quiet machine
# that is the settings, then the first corpus's tables and plots), reduced to 256 colours by
# pngquant when it is installed (a third of the size, and flat colours and text lose nothing
# visible; every version of the picture stays in git history). The run's files stay in
# target/report-picture/ (report.html, run.csv, run.json). Prints each command it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/report.png}
height=${2:-3200}
shared=../shared/datasets
work=target/report-picture
bin=${CARGO_TARGET_DIR:-target}/release/sudoku-bench

for corpus in puzzles2_17_clue puzzles3_magictour_top1465 puzzles5_forum_hardest_1905_11+; do
    [ -f "$shared/$corpus" ] || {
        echo "report-picture.sh: $shared/$corpus not found (scripts/fetch-corpora.sh fetches the corpora)" >&2
        exit 1
    }
done

show() {
    echo "+ $*" >&2
    "$@"
}

show scripts/browser.sh install
show cargo build --release --quiet
mkdir -p "$work" "$(dirname "$out")"

# Comment lines out first, so "every 100th" counts puzzles.
every_100th() {
    echo "+ grep -v '^#' $1 | awk 'NR % 100 == 1' > $2" >&2
    grep -v '^#' "$1" | awk 'NR % 100 == 1' >"$2"
}
every_100th "$shared/puzzles2_17_clue" "$work/17-clue-every-100th.txt"
every_100th "$shared/puzzles5_forum_hardest_1905_11+" "$work/forum-hardest-every-100th.txt"

show "$bin" run \
    "$shared/puzzles3_magictour_top1465" \
    "$work/17-clue-every-100th.txt" \
    "$work/forum-hardest-every-100th.txt" \
    --max-nodes 100000 --quiet \
    --out "$work/run.csv" --summary "$work/run.json" --report "$work/report.html"
show scripts/browser.sh png "$work/report.html" "$out" 1200 "$height"
if command -v pngquant >/dev/null 2>&1; then
    # Exit 98 or 99: the result would be larger or too far from the original; keep Chromium's.
    show pngquant --force --skip-if-larger --quality=80-100 --speed 1 --output "$out" -- "$out" ||
        echo "report-picture.sh: pngquant left $out as Chromium wrote it (exit $?)" >&2
else
    echo "report-picture.sh: pngquant not found, $out left as Chromium wrote it (apt-get install pngquant makes it a third of the size)" >&2
fi
ls -l "$out"
