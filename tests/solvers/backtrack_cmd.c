/* backtrack.c's solver as a `cmd:` solver (the line protocol of docs/formats.md), with a
 * loop of fixed work after each solve: `backtrack_cmd [TURNS]` (0 by default), as
 * backtrack.c's `extra_turns`. For the tests of `run --measure instructions`. Build:
 * cc -O2 backtrack_cmd.c -o backtrack_cmd */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backtrack.c"

int main(int argc, char **argv) {
    uint32_t turns = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 0;
    char line[256], solution[82];
    while (fgets(line, sizeof line, stdin)) {
        if (strlen(line) < 83) return 1;
        size_t limit = strtoul(line + 82, NULL, 10), guesses = 0;
        line[81] = '\0';
        size_t found = extra_turns(line, limit, turns, solution, &guesses);
        solution[81] = '\0';
        printf("%zu %s %zu\n", found, found ? solution : "-", guesses);
        fflush(stdout);
    }
    return 0;
}
