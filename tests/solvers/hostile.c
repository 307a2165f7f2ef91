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

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Jumps back into its first call, which has returned, as a library with a stale
 * `jmp_buf` does: its caller's loop runs again over puzzles it has solved, so the worker
 * looks busy and keeps moving from puzzle to puzzle without ever finishing its batch. */
static jmp_buf first_call;
static int saved;

size_t hostile_longjmp(const char *puzzle, size_t limit, uint32_t configuration,
                       char *solution, size_t *guesses) {
    if (!saved) {
        saved = 1;
        if (setjmp(first_call)) return 0;
    }
    if (triggered(puzzle)) longjmp(first_call, 1);
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

/* Closes descriptors 3 and 4, as a library that takes them for its own would. */
size_t hostile_close_low(const char *puzzle, size_t limit, uint32_t configuration,
                         char *solution, size_t *guesses) {
    if (triggered(puzzle)) {
        close(3);
        close(4);
    }
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

/* Closes every descriptor above stderr, as code that turns itself into a daemon does. */
size_t hostile_close_all(const char *puzzle, size_t limit, uint32_t configuration,
                         char *solution, size_t *guesses) {
    if (triggered(puzzle)) {
        long open_max = sysconf(_SC_OPEN_MAX);
        if (open_max < 0 || open_max > 65536) open_max = 65536;
        for (int fd = 3; fd < open_max; fd++) close(fd);
    }
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

/* Starts a daemon the usual way (fork, setsid, fork again, the middle process exits), then
 * solves: the daemon sleeps until killed, in a session and process group of its own. */
size_t hostile_daemon(const char *puzzle, size_t limit, uint32_t configuration,
                      char *solution, size_t *guesses) {
    if (triggered(puzzle)) {
        pid_t middle = fork();
        if (middle == 0) {
            setsid();
            if (fork() == 0) {
                int null = open("/dev/null", O_RDWR);
                for (int fd = 0; fd < 3; fd++) dup2(null, fd);
                for (;;) pause();
            }
            _exit(0);
        }
        if (middle > 0) waitpid(middle, NULL, 0);
    }
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

#include <stdio.h>
#include <time.h>

/* Never returns, and fakes progress meanwhile: it finds the memory its worker shares with
 * sudoku-bench (the mapping named sudoku-bench-isolated) and, over and over, stamps a new
 * start time on the puzzle it is on, as a worker that a damaged stack sends round its
 * batch again, starting puzzle after puzzle, does. The layout is that of
 * crates/foreign/src/isolated/shared.rs's Header: done (u32) at 0, started_ns (u64) at 8. */
size_t hostile_forge_progress(const char *puzzle, size_t limit, uint32_t configuration,
                              char *solution, size_t *guesses) {
    if (triggered(puzzle)) {
        char *header = NULL;
        char line[512];
        FILE *maps = fopen("/proc/self/maps", "r");
        while (maps && fgets(line, sizeof line, maps))
            if (strstr(line, "sudoku-bench-isolated")) {
                unsigned long start = strtoul(line, NULL, 16);
                header = (char *)start;
                break;
            }
        if (maps) fclose(maps);
        if (header) {
            volatile uint32_t *done = (volatile uint32_t *)header;
            volatile uint64_t *started = (volatile uint64_t *)(header + 8);
            uint32_t here = *done;
            for (;;) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                *started = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
                *done = here;
            }
        }
        for (volatile int forever = 1; forever;) {
        }
    }
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}

/* Solves like backtrack.c, 50 ms a puzzle (asleep, so two workers share one core): a
 * slow solver, whose rows must reach the CSV while the run goes on. When the environment
 * names SLOW_SOLVED_LOG, appends each puzzle it solved there with the CLOCK_MONOTONIC
 * time it returned at, for a test to tell which rows were finished when the run was
 * killed. */
size_t hostile_slow(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                    size_t *guesses) {
    struct timespec nap = {0, 50 * 1000 * 1000};
    while (nanosleep(&nap, &nap) != 0) {
    }
    size_t found = sudoku_solve(puzzle, limit, configuration, solution, guesses);
    const char *log = getenv("SLOW_SOLVED_LOG");
    if (log) {
        FILE *out = fopen(log, "a");
        if (out) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            fprintf(out, "%.81s %llu\n", puzzle,
                    (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
            fclose(out);
        }
    }
    return found;
}

/* Signals its parent (the worker's: sudoku-bench) on the trigger, as a solver may, then
 * solves. The low byte of `configuration` is the signal (0: SIGINT); the bits above it,
 * milliseconds to sleep before each puzzle, for a run that lasts. */
size_t hostile_signal(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                      size_t *guesses) {
    int sig = configuration & 0xff ? (int)(configuration & 0xff) : SIGINT;
    long nap_ms = (long)(configuration >> 8);
    struct timespec nap = {nap_ms / 1000, (nap_ms % 1000) * 1000 * 1000};
    while (nap_ms && nanosleep(&nap, &nap) != 0) {
    }
    if (triggered(puzzle)) kill(getppid(), sig);
    return sudoku_solve(puzzle, limit, 0, solution, guesses);
}

/* With HOSTILE_CHDIR_AT_LOAD set, moves the process to / as the library is loaded, as an
 * initialiser that settles in its data directory does. */
__attribute__((constructor)) static void hostile_chdir_at_load(void) {
    if (getenv("HOSTILE_CHDIR_AT_LOAD") && chdir("/") != 0) abort();
}

/* With HOSTILE_SIGNAL_AT_LOAD set, signals the parent (an isolated worker's: sudoku-bench)
 * with SIGINT as the library is loaded, before any puzzle: as sudoku-bench loads its
 * solvers. */
__attribute__((constructor)) static void hostile_signal_at_load(void) {
    if (getenv("HOSTILE_SIGNAL_AT_LOAD")) kill(getppid(), SIGINT);
}

/* Moves the process to / on the trigger, then solves: run in-process, every path the run
 * was given relative to where it started would then lead elsewhere. */
size_t hostile_chdir(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
                     size_t *guesses) {
    if (triggered(puzzle) && chdir("/") != 0) abort();
    return sudoku_solve(puzzle, limit, configuration, solution, guesses);
}
