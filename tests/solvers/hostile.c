/* Solvers that misbehave on one puzzle (TRIGGER, line 3 of tests/fixtures/mixed.txt) and
 * solve every other like backtrack.c, for the tests of isolated `lib:` solvers: each way a
 * library can end or damage the process that calls it. Build:
 * cc -O2 -shared -fPIC hostile.c -o libhostile.so */
#include <stdlib.h>
#include <string.h>

#include "backtrack.c"

static const char TRIGGER[] =
    "....3.52.7.1..4....9..........7....82....3....7...9.14.4........1.867.4....3.....";

static int triggered(const char *puzzle) { return memcmp(puzzle, TRIGGER, 81) == 0; }

size_t hostile_exit(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                    size_t *guesses) {
    if (triggered(puzzle)) exit(0);
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

size_t hostile_abort(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                     size_t *guesses) {
    if (triggered(puzzle)) abort();
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

/* Read through a volatile pointer, so the compiler cannot tell that it is null. */
static int *volatile nowhere;

size_t hostile_segfault(const char *puzzle, size_t limit, uint32_t configuration,
                        char *solution, size_t *guesses) {
    if (triggered(puzzle)) *nowhere = 1;
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

size_t hostile_spin(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                    size_t *guesses) {
    if (triggered(puzzle))
        for (volatile int forever = 1; forever;) {
        }
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

/* Writes `configuration` bytes of 'x' right after the 81 characters of the solution. */
size_t hostile_overrun(const char *puzzle, size_t limit, uint32_t configuration,
                       char *solution, size_t *guesses) {
    size_t found = sudoku_solve(puzzle, limit, 0, solution, guesses);
    if (triggered(puzzle)) memset(solution + 81, 'x', configuration);
    return found;
}

/* Allocates `configuration` MiB and writes to every page of it, then solves: past a memory
 * limit the allocation fails and the write through the null pointer faults. */
size_t hostile_allocate(const char *puzzle, size_t limit, uint32_t configuration,
                        char *solution, size_t *guesses) {
    if (triggered(puzzle)) {
        size_t bytes = (size_t)configuration << 20;
        char *block = malloc(bytes);
        for (size_t i = 0; i < bytes; i += 4096) block[i] = 1;
        free(block);
    }
    return sudoku_solve(puzzle, limit, 0, solution, guesses);
}
