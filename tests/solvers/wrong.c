/* Solvers that answer wrongly, each in its own way, for the tests of `run --solver lib:`.
 * Build: cc -O2 -shared -fPIC wrong.c -o libwrong.so */
#include <stddef.h>
#include <stdint.h>

/* Claims one solution and returns the puzzle with every blank made a 1: not a solution. */
size_t sudoku_solve(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                    size_t *guesses) {
    (void)limit;
    (void)configuration;
    for (int i = 0; i < 81; i++) solution[i] = puzzle[i] == '.' ? '1' : puzzle[i];
    *guesses = 0;
    return 1;
}

/* Finds nothing, ever. */
size_t none_found(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                  size_t *guesses) {
    (void)puzzle;
    (void)limit;
    (void)configuration;
    (void)solution;
    (void)guesses;
    return 0;
}

/* Counts past the limit it was given. */
size_t too_many(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                size_t *guesses) {
    (void)puzzle;
    (void)configuration;
    (void)solution;
    (void)guesses;
    return limit + 1;
}

/* Writes a solution that is not digits. */
size_t garbage(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
               size_t *guesses) {
    (void)puzzle;
    (void)limit;
    (void)configuration;
    (void)guesses;
    for (int i = 0; i < 81; i++) solution[i] = 'x';
    return 1;
}
