#!/usr/bin/env python3
"""The classic Sudoku backtracker, speaking sudoku-bench's line protocol.

    sudoku-bench run --solver 'py=cmd:python3 examples/solvers/backtrack.py'

sudoku-bench writes one line per puzzle, PUZZLE LIMIT (81 characters, '.' for a blank,
then the number of solutions to count up to), and waits for one line back:
COUNT SOLUTION GUESSES (the solutions found, up to LIMIT; the first one as 81 digits,
or '-'; the guesses made, or '-'). It closes stdin when it is done.

The search: the first empty cell in row-major order, the digits 1 to 9 in turn, a digit
kept when its row, column and box do not hold it yet. A guess is a digit placed in a
cell where more than one digit fitted. Arguments are ignored.
"""

import sys

# The 20 cells that share a row, column or box with each cell.
PEERS = [
    sorted(
        {r * 9 + cell % 9 for r in range(9)}
        | {cell // 9 * 9 + c for c in range(9)}
        | {
            (cell // 27 * 3 + k // 3) * 9 + cell % 9 // 3 * 3 + k % 3
            for k in range(9)
        }
        - {cell}
    )
    for cell in range(81)
]


def solve(grid, limit):
    """Count the solutions of grid (a list of 81 ints, 0 for blank) up to limit.

    Returns (count, first solution or None, guesses).
    """
    found = []
    count = 0
    guesses = 0

    def fill(start):
        nonlocal count, guesses
        cell = next((i for i in range(start, 81) if grid[i] == 0), None)
        if cell is None:
            if count == 0:
                found.append(list(grid))
            count += 1
            return count >= limit
        taken = {grid[p] for p in PEERS[cell]}
        digits = [d for d in range(1, 10) if d not in taken]
        for digit in digits:
            guesses += len(digits) > 1
            grid[cell] = digit
            stop = fill(cell + 1)
            grid[cell] = 0
            if stop:
                return True
        return False

    fill(0)
    return count, (found[0] if found else None), guesses


def answer(line):
    puzzle, limit = line.split()
    grid = [0 if ch == "." else int(ch) for ch in puzzle]
    count, first, guesses = solve(grid, int(limit))
    solution = "".join(map(str, first)) if first else "-"
    return f"{count} {solution} {guesses}"


def main():
    for line in sys.stdin:
        print(answer(line), flush=True)


if __name__ == "__main__":
    main()
