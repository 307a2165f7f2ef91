#!/usr/bin/env bash
# Prints the CPU as sudoku-bench's summaries name it (the model name, with the x86 family and
# model numbers: a cloud guest's model name alone can be the same for two machine types), so
# that the scripts' tables and the tool's own outputs name a machine alike.
#
#   scripts/cpu-name.sh BIN      BIN: the sudoku-bench binary to ask
set -euo pipefail
bin=${1:?usage: scripts/cpu-name.sh BIN}
"$bin" run "$(dirname "$0")/../datasets/classic.txt" -s fast -q -o /dev/null --summary - |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["cpu"])'
