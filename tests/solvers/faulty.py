#!/usr/bin/env python3
"""A solver that misbehaves on purpose, for the tests of `--solver NAME=cmd:...`.

    faulty.py MODE TRIGGER [TAG]

It answers like examples/solvers/backtrack.py, except on the puzzle TRIGGER (81
characters), where it does what MODE says. TAG is a path that tests use to find their
own processes. Modes:

    hang      create the file TAG (if given), then answer nothing, ever
    crash     exit with status 3
    garbage   answer bytes that are not text
    fields    answer two fields instead of three
    count     answer a count above the limit
    short     answer a solution of 80 digits
    wrong     answer a solution of another puzzle (the count is right)
    lines     answer twice
    noline    answer without ending the line, then exit
    closeexit close stdout, then exit with status 4 a moment later
    closehang close stdout, then answer nothing, ever
    probe     answer every solved grid (the probe's puzzle) wrongly
    dashes    answer `-` for the guesses of every puzzle but the probe's
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

EASY_SOLUTION = (
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
)


def misbehave(mode, line):
    """What to write for the trigger puzzle; None when the mode ends the process."""
    puzzle, limit = line.split()
    count, solution, guesses = backtrack.answer(line).split()
    if mode == "hang":
        if len(sys.argv) > 3:
            open(sys.argv[3], "w").close()
        time.sleep(3600)
    if mode == "crash":
        sys.exit(3)
    if mode == "garbage":
        return b"\xff\xfe\x00 not an answer\n"
    if mode == "fields":
        return f"{count} {solution}\n".encode()
    if mode == "count":
        return f"{int(limit) + 1} {solution} {guesses}\n".encode()
    if mode == "short":
        return f"{count} {solution[:80]} {guesses}\n".encode()
    if mode == "wrong":
        return f"{count} {EASY_SOLUTION} {guesses}\n".encode()
    if mode == "lines":
        return f"{count} {solution} {guesses}\n{count} {solution} {guesses}\n".encode()
    if mode == "noline":
        sys.stdout.buffer.write(f"{count} {solution}".encode())
        sys.stdout.flush()
        sys.exit(0)
    if mode in ("closeexit", "closehang"):
        os.close(1)
        time.sleep(0.2 if mode == "closeexit" else 3600)
        os._exit(4)
    raise SystemExit(f"faulty.py: unknown mode {mode!r}")


def main():
    mode, trigger = sys.argv[1], sys.argv[2]
    out = sys.stdout.buffer
    for line in sys.stdin:
        puzzle = line.split()[0]
        solved = "." not in puzzle
        if mode == "probe" and solved:
            out.write(b"0 - -\n")
        elif mode == "dashes" and not solved:
            count, solution, _ = backtrack.answer(line).split()
            out.write(f"{count} {solution} -\n".encode())
        elif puzzle == trigger and mode not in ("probe", "dashes"):
            out.write(misbehave(mode, line))
        else:
            out.write(backtrack.answer(line).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
