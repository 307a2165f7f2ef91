/* A plain bitmask backtracker exporting tdoku's C ABI, for the tests of `run --solver lib:`
 * (and a template for a user's own): the cell with the fewest candidates first, digits in
 * order. Build: cc -O2 -shared -fPIC backtrack.c -o libbacktrack.so
 *
 * size_t SYMBOL(const char *puzzle, size_t limit, uint32_t configuration,
 *               char *solution, size_t *guesses);
 */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct search {
    uint16_t rows[9], cols[9], boxes[9];
    char cells[81];
    char first[81];
    size_t found, limit, guesses;
};

static int box_of(int cell) { return cell / 27 * 3 + cell % 9 / 3; }

static uint16_t candidates(const struct search *s, int cell) {
    return (uint16_t)(~(s->rows[cell / 9] | s->cols[cell % 9] | s->boxes[box_of(cell)]) & 0x1ff);
}

static void place(struct search *s, int cell, int digit, int on) {
    uint16_t bit = (uint16_t)(1u << digit);
    s->rows[cell / 9] ^= bit;
    s->cols[cell % 9] ^= bit;
    s->boxes[box_of(cell)] ^= bit;
    s->cells[cell] = on ? (char)('1' + digit) : '.';
}

static void search(struct search *s) {
    int best = -1, best_count = 10;
    for (int cell = 0; cell < 81; cell++) {
        if (s->cells[cell] != '.') continue;
        int n = __builtin_popcount(candidates(s, cell));
        if (n < best_count) {
            best = cell;
            best_count = n;
            if (n <= 1) break;
        }
    }
    if (best < 0) {
        if (s->found++ == 0)
            for (int i = 0; i < 81; i++) s->first[i] = s->cells[i];
        return;
    }
    uint16_t left = candidates(s, best);
    for (int digit = 0; digit < 9 && s->found < s->limit; digit++) {
        if (!(left >> digit & 1)) continue;
        if (best_count > 1) s->guesses++;
        place(s, best, digit, 1);
        search(s);
        place(s, best, digit, 0);
    }
}

/* Counts the solutions of `puzzle` up to `limit`; 0 when its givens break a rule. */
static size_t solve(const char *puzzle, size_t limit, char *solution, size_t *guesses) {
    struct search s = {0};
    s.limit = limit;
    for (int cell = 0; cell < 81; cell++) {
        s.cells[cell] = '.';
        char c = puzzle[cell];
        if (c < '1' || c > '9') continue;
        int digit = c - '1';
        if (!(candidates(&s, cell) >> digit & 1)) return 0;
        place(&s, cell, digit, 1);
    }
    search(&s);
    if (s.found > 0 && solution)
        for (int i = 0; i < 81; i++) solution[i] = s.first[i];
    *guesses = s.guesses;
    return s.found;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The default symbol: fills the solution whatever the limit. `configuration` = K makes each
 * call about K% slower than the solve itself (it spins for K% of the solve's own time), a
 * known slowdown for testing `compare`. The clock is read whatever K, so that K = 0 costs
 * the same as any other K apart from the spin. */
size_t sudoku_solve(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                    size_t *guesses) {
    uint64_t start = now_ns();
    size_t found = solve(puzzle, limit, solution, guesses);
    uint64_t took = now_ns() - start;
    uint64_t until = start + took + took * configuration / 100;
    while (now_ns() < until) {
    }
    return found;
}

/* The solve, then `configuration` turns of a loop of fixed work: a known number of
 * instructions more per call, whatever the puzzle, for the tests of `run --measure
 * instructions` (K turns cost K times what one turn costs). */
size_t extra_turns(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                   size_t *guesses) {
    size_t found = solve(puzzle, limit, solution, guesses);
    for (volatile uint32_t turn = 0; turn < configuration; turn++) {
    }
    return found;
}

/* Does nothing and finds nothing (a wrong answer wherever there is a solution): what the
 * harness counts around a call, for the tests of `run --measure instructions`. */
size_t nothing(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
               size_t *guesses) {
    (void)puzzle, (void)limit, (void)configuration, (void)solution, (void)guesses;
    return 0;
}

/* Like tdoku: fills the solution only when limit == 1. */
size_t tdoku_like(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                  size_t *guesses) {
    (void)configuration;
    return solve(puzzle, limit, limit == 1 ? solution : NULL, guesses);
}

/* Reports its configuration as its guesses, so a test sees that it arrived. */
size_t echo_config(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                   size_t *guesses) {
    size_t found = solve(puzzle, limit, solution, guesses);
    *guesses = configuration;
    return found;
}

/* glibc's, declared by <sched.h> only under _GNU_SOURCE, which hostile.c (including this
 * file after other headers) could not define in time. */
int sched_getcpu(void);

/* Reports the CPU it solved on as its guesses, so a test sees where its worker ran. */
size_t on_cpu(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
              size_t *guesses) {
    (void)configuration;
    size_t found = solve(puzzle, limit, solution, guesses);
    *guesses = (size_t)sched_getcpu();
    return found;
}

/* Not reentrant: it notices a second call while one is in flight (each lasts at least a
 * millisecond, so calls from two threads overlap) and from then on answers a count above
 * the limit, so that an overlap in an untimed warm-up shows in the timed results too. */
static int in_flight, overlapped;

size_t not_reentrant(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                     size_t *guesses) {
    (void)configuration;
    if (__atomic_exchange_n(&in_flight, 1, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&overlapped, 1, __ATOMIC_SEQ_CST);
        return limit + 1;
    }
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
    size_t found = solve(puzzle, limit, solution, guesses);
    __atomic_store_n(&in_flight, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&overlapped, __ATOMIC_SEQ_CST) ? limit + 1 : found;
}
