/* backtrack.c's solver as a program speaking sudoku-bench's line protocol (`cmd:`), made
 * PERCENT% slower: a known slowdown for calibrating `compare` on `cmd:` solvers
 * (scripts/verdicts.sh). Build: cc -O2 spin.c -o spin; run: spin PERCENT.
 *
 * It reads PUZZLE LIMIT lines and answers COUNT SOLUTION GUESSES lines; after each solve it
 * spins for PERCENT% of the solve's own time, as backtrack.c's `configuration` does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backtrack.c"

int main(int argc, char **argv) {
    uint32_t percent = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 0;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char puzzle[82];
        size_t limit;
        if (sscanf(line, "%81s %zu", puzzle, &limit) != 2 || strlen(puzzle) != 81) {
            return 1;
        }
        char solution[82] = {0};
        size_t guesses = 0;
        size_t found = sudoku_solve(puzzle, limit, percent, solution, &guesses);
        printf("%zu %s %zu\n", found, found > 0 ? solution : "-", guesses);
        fflush(stdout);
    }
    return 0;
}
