#!/usr/bin/env python3
"""Checks that a merged sudoku-bench result equals a single run's, but for the times.

usage: same-result.py SINGLE.csv MERGED.csv SINGLE.json MERGED.json

The CSVs must hold the same rows in the same order with the same values in every column
but time_ns and replicate (which of the run's replicated solvers solved a row follows how
the run cut its input into chunks, which a part cuts anew). The summaries must agree, per (corpus, strategy), on every count and on the
node and guess means: those depend on the puzzles only, the times on the machine."""

import csv
import json
import sys

# Columns that a split may change: the machine's, and the run's own chunking.
RUN_COLUMNS = ("time_ns", "replicate")

# Summary fields that a split cannot change; everything else there is a time or a rate.
COUNTS = (
    "puzzles", "unique", "multiple", "unsolvable", "solved", "invalid", "malformed",
    "aborted", "mismatches", "failures", "unreturned", "searched",
    "mean_nodes", "mean_guesses", "no_guess_share",
)


def rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None or "time_ns" not in reader.fieldnames:
            sys.exit(f"{path}: not a per-puzzle CSV (no time_ns column)")
        return reader.fieldnames, [
            {k: v for k, v in row.items() if k not in RUN_COLUMNS} for row in reader
        ]


def compare_csv(single, merged):
    fields_s, rows_s = rows(single)
    fields_m, rows_m = rows(merged)
    problems = []
    if fields_s != fields_m:
        problems.append(f"columns differ: {fields_s} vs {fields_m}")
    for i, (a, b) in enumerate(zip(rows_s, rows_m), start=2):
        if a != b:
            diff = {k: (a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
            problems.append(f"CSV line {i} differs (single, merged): {diff}")
            if len(problems) >= 5:
                break
    if len(rows_s) != len(rows_m):
        problems.append(f"{single} has {len(rows_s)} rows, {merged} has {len(rows_m)}")
    return problems, len(rows_s)


def summary_rows(path):
    with open(path) as f:
        summary = json.load(f)
    return {(r["corpus"], r["strategy"]): r for r in summary["rows"]}


def compare_summary(single, merged):
    s, m = summary_rows(single), summary_rows(merged)
    problems = []
    if s.keys() != m.keys():
        problems.append(f"summary rows differ: {sorted(s)} vs {sorted(m)}")
    for key in sorted(s.keys() & m.keys()):
        for field in COUNTS:
            if s[key].get(field) != m[key].get(field):
                problems.append(
                    f"summary {key[0]} {key[1]} {field}: single {s[key].get(field)}, "
                    f"merged {m[key].get(field)}"
                )
    return problems, len(s)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[1])
    single_csv, merged_csv, single_json, merged_json = sys.argv[1:]
    csv_problems, n_rows = compare_csv(single_csv, merged_csv)
    sum_problems, n_sum = compare_summary(single_json, merged_json)
    problems = csv_problems + sum_problems
    for p in problems:
        print(f"MISMATCH: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"same: {n_rows} CSV rows (all columns but time_ns and replicate), {n_sum} summary rows (counts, nodes, guesses)")


main()
