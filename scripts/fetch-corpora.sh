#!/usr/bin/env bash
# Download the well-known public Sudoku corpora listed in datasets/README.md into DIR
# (default ../shared/datasets beside the repository, where the tests look). Needs internet
# access, curl and unzip; the Kaggle sets also need the `kaggle` CLI with an API token.
# Files already present are kept. Nothing is written into this repository.
set -euo pipefail

dir=${1:-"$(cd "$(dirname "$0")/../.." && pwd)/shared/datasets"}
mkdir -p "$dir"
cd "$dir"

fetch() { # fetch FILE URL: download unless FILE is already there
    if [ -s "$1" ]; then
        echo "have $1"
        return
    fi
    echo "fetching $1"
    curl --fail --location --silent --show-error --output "$1.part" "$2"
    mv "$1.part" "$1"
}

# tdoku's benchmark archive gathers the 17-clue list, magictour top1465 and the forum's
# hardest lists under the names the tests use.
wanted=(puzzles2_17_clue puzzles3_magictour_top1465 puzzles4_forum_hardest_1905
    "puzzles5_forum_hardest_1905_11+" puzzles6_forum_hardest_1106)
missing=0
for f in "${wanted[@]}"; do [ -s "$f" ] || missing=1; done
if [ "$missing" = 1 ]; then
    fetch tdoku-data.zip "https://github.com/t-dillon/tdoku/raw/master/data.zip"
    for f in "${wanted[@]}"; do
        [ -s "$f" ] || unzip -p tdoku-data.zip "data/$f" >"$f"
    done
    rm -f tdoku-data.zip
fi

fetch top95.txt "https://norvig.com/top95.txt"

if command -v kaggle >/dev/null; then
    [ -s sudoku.csv ] || kaggle datasets download --unzip -d bryanpark/sudoku
    [ -s sudoku-3m.csv ] || kaggle datasets download --unzip -d radcliffe/3-million-sudoku-puzzles-with-ratings
else
    echo "skipping the Kaggle sets: install the kaggle CLI and an API token to fetch them" >&2
fi
echo "corpora in $(pwd)"
