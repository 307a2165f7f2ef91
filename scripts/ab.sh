#!/usr/bin/env bash
# Interleaved A/B runs: the baseline and the current build take turns on the same machine
# (ABBA: old new, new old, old new, ...) so that drift of the machine's speed - a neighbour
# starting, the CPU warming - falls on both alike, then `compare --baseline ... --current ...`
# judges them with an interval that holds the run-to-run variation.
set -euo pipefail
# Exit status 1 is compare's regression and nothing else: any other failure exits 2.
set -E
trap 'echo "ab.sh: failed (line $LINENO): $BASH_COMMAND" >&2; exit 2' ERR

usage() {
    cat <<'USAGE'
usage: scripts/ab.sh [options] OLD_BIN NEW_BIN -- RUN_ARGS...

Runs `BIN run RUN_ARGS... --out FILE` for each build in interleaved rounds (round 1: old
then new; round 2: new then old; ...), then `NEW_BIN compare --baseline OLD... --current
NEW...` and exits with its status (0 no regression, 1 slower or search changed, 2 error).
A run that fails (e.g. --strict found a wrong answer) stops the rounds with exit 2.
OLD_BIN and NEW_BIN may be the same binary told apart by --old-args/--new-args.

options:
  --rounds N          rounds, each one run per side (default 3; 2 at least for a verdict)
  --out DIR           where the CSVs go (default: a new temporary directory, printed)
  --old-args 'ARGS'   extra `run` arguments for the old side only (split on spaces)
  --new-args 'ARGS'   extra `run` arguments for the new side only (split on spaces)
  --compare 'ARGS'    extra `compare` arguments, e.g. '--threshold 10% --format markdown'
  -h, --help          this help

example:
  scripts/ab.sh --rounds 3 --out ab old/sudoku-bench new/sudoku-bench -- \
      datasets/classic.txt -s fast,dlx --timeout 0 -q
USAGE
}

rounds=3 out="" old_args="" new_args="" compare_args=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --old-args) old_args=${2?--old-args needs a value}; shift 2 ;;
        --new-args) new_args=${2?--new-args needs a value}; shift 2 ;;
        --compare) compare_args=${2?--compare needs a value}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) echo "ab.sh: OLD_BIN and NEW_BIN come before --" >&2; usage >&2; exit 2 ;;
        -*) echo "ab.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 3 ] || [ "$3" != "--" ]; then
    usage >&2
    exit 2
fi
old_bin=$1 new_bin=$2
shift 3
case "$rounds" in
    ''|*[!0-9]*|0) echo "ab.sh: --rounds must be a whole number from 1" >&2; exit 2 ;;
esac
for bin in "$old_bin" "$new_bin"; do
    if ! [ -x "$bin" ] && ! command -v "$bin" >/dev/null; then
        echo "ab.sh: $bin: not an executable" >&2
        exit 2
    fi
done
if [ -z "$out" ]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/ab.XXXXXX")
fi
mkdir -p "$out"
echo "ab.sh: $rounds round(s), CSVs in $out" >&2

read -r -a old_extra <<<"$old_args"
read -r -a new_extra <<<"$new_args"
read -r -a cmp_extra <<<"$compare_args"
base=() cur=()
run_side() { # side round RUN_ARGS...
    local side=$1 round=$2
    shift 2
    local file="$out/$side-$round.csv" bin extra status=0
    rm -f "$file"
    if [ "$side" = old ]; then
        bin=$old_bin extra=("${old_extra[@]}")
        base+=("$file")
    else
        bin=$new_bin extra=("${new_extra[@]}")
        cur+=("$file")
    fi
    echo "ab.sh: round $round: $side" >&2
    "$bin" run "$@" "${extra[@]}" --out "$file" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "ab.sh: round $round: the $side run ($bin run) failed (exit $status); no verdict" >&2
        exit 2
    fi
}
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then
        run_side old "$r" "$@"
        run_side new "$r" "$@"
    else
        run_side new "$r" "$@"
        run_side old "$r" "$@"
    fi
done
status=0
"$new_bin" compare --baseline "${base[@]}" --current "${cur[@]}" "${cmp_extra[@]}" || status=$?
exit "$status"
