#!/usr/bin/env python3
"""A solver one line behind, for the tests of `--solver NAME=cmd:...`.

    lagging.py count|solution [TAG]

It answers like examples/solvers/backtrack.py (with `count`, only `COUNT - -`), except
that a few milliseconds after its answer to the first puzzle (not the solved grid
sudoku-bench starts every copy with) it writes that answer once more, unasked: every
later answer then arrives while sudoku-bench waits for the next one. TAG is a path that
tests use to find their own processes.
"""

import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "backtrack", os.path.join(HERE, "..", "..", "examples", "solvers", "backtrack.py")
)
backtrack = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(backtrack)


def main():
    count_only = sys.argv[1] == "count"
    out = sys.stdout.buffer
    lagged = False
    for line in sys.stdin:
        count, solution, guesses = backtrack.answer(line).split()
        answer = f"{count} - -\n" if count_only else f"{count} {solution} {guesses}\n"
        out.write(answer.encode())
        out.flush()
        if not lagged and "." in line.split()[0]:
            lagged = True
            time.sleep(0.005)
            out.write(answer.encode())
            out.flush()


if __name__ == "__main__":
    main()
