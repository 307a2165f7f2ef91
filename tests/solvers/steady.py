#!/usr/bin/env python3
"""A slow, steady solver, for the tests of a stopped `run --solver NAME=cmd:...`.

    steady.py SECONDS LOG HOLD GO [TAG]

It answers like examples/solvers/backtrack.py, but sleeps SECONDS before every answer to a
puzzle, and after each such answer appends a line to the file LOG: its lines count the
puzzles answered, over all copies. The exchanges of sudoku-bench's own (the solved grid it
starts every copy with, the empty grid that checks a copy is in step) are answered at once
and not counted.
Once LOG has HOLD lines, every copy waits before its next puzzle until the file GO exists,
so that a test can signal sudoku-bench while solves are in flight and the answers are
counted. TAG is a path that tests use to find their own processes.
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


def answered(log):
    try:
        with open(log) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def main():
    seconds, log, hold, go = float(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    out = sys.stdout.buffer
    for line in sys.stdin:
        grid = line.split()[0]
        puzzle = "." in grid and grid.strip(".") != ""
        if puzzle:
            while answered(log) >= hold and not os.path.exists(go):
                time.sleep(0.005)
            time.sleep(seconds)
        out.write(backtrack.answer(line).encode() + b"\n")
        out.flush()
        if puzzle:
            # One short write in append mode: the copies' lines never mix.
            with open(log, "a") as f:
                f.write("answered\n")


if __name__ == "__main__":
    main()
