#!/usr/bin/env bash
# Checks issue 15's scale target: `sudoku-bench report` on a per-puzzle CSV of 2,000,000 rows
# writes its HTML in under 30 s, and the HTML is under 5 MB (5,000,000 bytes). Exits 1 when
# either is missed.
#
#   scripts/report-scale.sh [ROWS]        (default 2000000)
#
# The CSV is one real run (every strategy over datasets/minimal.txt: 6,000 rows) copied until
# it has at least ROWS rows, each copy with line numbers of its own (so every row is another
# puzzle to the report) and its times scaled by a random factor between 0.8 and 1.25 (fixed
# seed), so the scatter and distribution plots get as many distinct points to thin as a real
# run of that size would. A real run of 2,000,000 rows (333,000 puzzles under every strategy)
# would take hours for `naive` and `hashset`; the report does the same work on either.
# Most of its time is that first run; the report itself takes seconds. Not part of CI: the
# minutes of the first run and the 450 MB CSV buy nothing the unit tests of the report and
# the browser test do not already check, except the 30 s and 5 MB limits themselves.
# Files in target/report-scale/. Prints each command it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-2000000}
[[ $rows =~ ^[1-9][0-9]*$ ]] || { echo "report-scale.sh: ROWS '$rows' is not a positive number" >&2; exit 2; }
max_seconds=30
max_bytes=5000000
work=target/report-scale
bin=${CARGO_TARGET_DIR:-target}/release/sudoku-bench

show() {
    echo "+ $*" >&2
    "$@"
}

show cargo build --release --quiet
mkdir -p "$work"
show "$bin" run datasets/minimal.txt --quiet --out "$work/base.csv"

# Columns by name, so a change in the CSV's layout fails here rather than making a wrong file.
header=$(head -n 1 "$work/base.csv")
column() {
    local n
    n=$(tr ',' '\n' <<<"$header" | grep -nx "$1" | cut -d: -f1)
    [ -n "$n" ] || { echo "report-scale.sh: no column '$1' in $work/base.csv: $header" >&2; exit 1; }
    echo "$n"
}
line_col=$(column line)
time_col=$(column time_ns)
base_rows=$(($(wc -l <"$work/base.csv") - 1))
copies=$(((rows + base_rows - 1) / base_rows))
last_line=$(awk -F, -v c="$line_col" 'NR > 1 && $c > m {m = $c} END {print m + 0}' "$work/base.csv")

echo "+ $copies copies of $work/base.csv ($base_rows rows) > $work/big.csv" >&2
# The corpus path (the first column) has no comma, so the fields up to time_ns split on ','.
awk -F, -v OFS=, -v copies="$copies" -v lines="$last_line" -v lc="$line_col" -v tc="$time_col" '
    NR == 1 { print; next }
    { row[NR] = $0 }
    END {
        srand(15)
        for (k = 0; k < copies; k++)
            for (i = 2; i <= NR; i++) {
                $0 = row[i]
                $lc = sprintf("%d", $lc + k * lines)
                if ($tc != "") $tc = sprintf("%.0f", $tc * exp((rand() - 0.5) * 0.446))
                print
            }
    }' "$work/base.csv" >"$work/big.csv"
big_rows=$(($(wc -l <"$work/big.csv") - 1))
echo "rows: $big_rows ($(du -h "$work/big.csv" | cut -f1))"

show /usr/bin/time -v -o "$work/time.txt" "$bin" report "$work/big.csv" -o "$work/big.html"
elapsed=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
seconds=$(awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s}' <<<"$elapsed")
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
bytes=$(wc -c <"$work/big.html")
echo "report of $big_rows rows: ${seconds} s wall, max RSS $((rss_kb / 1024)) MiB, HTML $bytes bytes"

status=0
if awk -v s="$seconds" -v m="$max_seconds" 'BEGIN {exit !(s > m)}'; then
    echo "report-scale.sh: FAIL: ${seconds} s is over ${max_seconds} s" >&2
    status=1
fi
if [ "$bytes" -gt "$max_bytes" ]; then
    echo "report-scale.sh: FAIL: $bytes bytes is over $max_bytes" >&2
    status=1
fi
[ "$status" -ne 0 ] || echo "ok: under ${max_seconds} s and under $max_bytes bytes"
exit "$status"
