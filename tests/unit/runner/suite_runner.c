/* The unit tests a suite per process: `make check`'s first pass over the Criterion tests.
 *
 * Criterion starts every test in a process of its own: it forks and then executes the test
 * binary again, which loads its 41 shared libraries and, in the ASan+UBSan build, sets up the
 * sanitizers' shadow memory and registers every global, before the test runs; at the exit
 * LeakSanitizer scans the process. That start and exit cost about 0.3-0.45 CPU s a test
 * under ASan (534 tests: 231-249 CPU s, 2026-11-28), most of it not the test's own work.
 *
 * This runner is linked with the same test objects instead of Criterion's runner. It forks
 * (no new execution: libraries and sanitizers stay set up) one child per suite, which runs
 * the suite's tests one after another with Criterion's semantics (the suite's and the test's
 * init before, fini after even when an assertion failed, an assertion failure ends the test)
 * and exits through exit(), so LeakSanitizer checks the suite's process once. The child
 * reports each test on a pipe; the parent prints one line a suite, "SUITE name tests passed
 * failed skipped status process" (process: which child ran it, 1, 2, ...; 0 for none), and
 * Criterion's synthesis line. A suite whose child failed a test,
 * crashed, was stopped by a sanitizer or leaked is not judged here: tests/run-all.sh runs it
 * again under Criterion, a process a test, so every failure is named by its test as before.
 *
 * The assertion macros call the functions below by name, and the executable's definitions
 * take precedence over libcriterion's: nothing here talks to Criterion's runner. Only the
 * test kinds this project uses are supported (Test and TestSuite with init/fini); a test
 * asking for a signal, an exit code, a timeout or parameters makes its suite go to
 * Criterion (reported as "unsupported"). */
#include <criterion/criterion.h>
#include <criterion/stats.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the tests and suites Test() and TestSuite() put in these sections (GNU ld's bounds) */
extern struct criterion_test *__start_cr_tst[], *__stop_cr_tst[];
extern struct criterion_suite *__start_cr_sts[], *__stop_cr_sts[];

/* the test running in this child: one at a time, set by run_test() (a child process's
 * own state, not shared) */
static const struct criterion_test *cur_test;
static const struct criterion_suite *cur_suite;
static jmp_buf phase_jmp, test_jmp;
static int cur_failed, cur_skipped;
static FILE *fail_log;

void cri_asserts_passed_incr(void) {}

void criterion_send_assert(struct criterion_assert_stats *stats)
{
    if (stats->passed) return;
    cur_failed = 1;
    fprintf(fail_log, "%s:%u: %s/%s: %s\n", stats->file ? stats->file : "?", stats->line,
            cur_test->category, cur_test->name, stats->message ? stats->message : "assertion failed");
}

void criterion_abort_test(void)
{
    cur_failed = 1;
    longjmp(phase_jmp, 1);
}

void criterion_continue_test(void) {}

void criterion_skip_test(const char *format, ...)
{
    (void)format;
    cur_skipped = 1;
    longjmp(phase_jmp, 1);
}

void criterion_test_die(const char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    vfprintf(fail_log, msg, ap);
    va_end(ap);
    fputc('\n', fail_log);
    cur_failed = 1;
    longjmp(test_jmp, 1);
}

/* As Criterion: the suite's init then the test's; a failure there ends the test (Criterion
 * aborts the process) */
void criterion_internal_test_setup(void)
{
    if (!setjmp(phase_jmp)) {
        if (cur_suite && cur_suite->data && cur_suite->data->init) cur_suite->data->init();
        if (cur_test->data->init) cur_test->data->init();
        return;
    }
    cur_failed = 1;
    longjmp(test_jmp, 1);
}

void criterion_internal_test_main(void (*fn)(void))
{
    if (!setjmp(phase_jmp)) fn();
}

/* the test's fini then the suite's, run after a failed assertion too */
void criterion_internal_test_teardown(void)
{
    if (!setjmp(phase_jmp)) {
        if (cur_test->data->fini) cur_test->data->fini();
        if (cur_suite && cur_suite->data && cur_suite->data->fini) cur_suite->data->fini();
    }
}

static int by_name(const void *a, const void *b)
{
    const struct criterion_test *x = *(struct criterion_test *const *)a;
    const struct criterion_test *y = *(struct criterion_test *const *)b;
    int c = strcmp(x->category, y->category);
    return c ? c : strcmp(x->name, y->name);
}

static bool supported(const struct criterion_test *t)
{
    const struct criterion_test_extra_data *d = t->data;
    return !d->param_ && d->kind_ == CR_TEST_NORMAL && !d->signal && !d->exit_code && d->timeout == 0;
}

/* one test, the current one (its own frame: nothing of the caller's is live across the jump) */
static void run_test(void)
{
    if (!setjmp(test_jmp)) cur_test->test();
}

/* runs tests[from, to) (one suite) in this process; writes "P|F|S index name" lines to fd */
static void run_suite(struct criterion_test **tests, size_t from, size_t to, int fd)
{
    cur_suite = NULL;
    for (struct criterion_suite **s = __start_cr_sts; s < __stop_cr_sts; s++)
        if (*s && !strcmp((*s)->name, tests[from]->category)) cur_suite = *s;
    for (size_t i = from; i < to; i++) {
        cur_test = tests[i];
        cur_failed = cur_skipped = 0;
        if (cur_test->data->disabled || (cur_suite && cur_suite->data && cur_suite->data->disabled))
            cur_skipped = 1;
        else
            run_test();
        dprintf(fd, "%c %zu %s\n", cur_failed ? 'F' : cur_skipped ? 'S' : 'P', i, cur_test->name);
    }
}

/* the end of the suite that starts at tests[from] */
static size_t suite_end(struct criterion_test **tests, size_t n, size_t from)
{
    size_t to = from;
    while (to < n && !strcmp(tests[to]->category, tests[from]->category)) to++;
    return to;
}

int main(int argc, char **argv)
{
    /* --suites=N: up to N suites a process, one after another. Under ASan a child's fork and
     * LeakSanitizer's scan at its exit cost about as much as a small suite's tests; a child
     * that fails in any way (a test, a crash, a sanitizer report, a leak at its exit) sends
     * every suite it ran to Criterion (tests/run-all.sh), where each test is named. */
    long jobs = 2, per = 1;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--jobs=", 7)) jobs = strtol(argv[i] + 7, NULL, 10);
        else if (!strncmp(argv[i], "--suites=", 9)) per = strtol(argv[i] + 9, NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--jobs=N] [--suites=N]\n", argv[0]);
            return 2;
        }
    }
    if (jobs < 1) jobs = 1;
    if (per < 1) per = 1;
    size_t n = 0;
    for (struct criterion_test **t = __start_cr_tst; t < __stop_cr_tst; t++)
        if (*t) n++;
    struct criterion_test **tests = malloc((n ? n : 1) * sizeof *tests);
    /* each test's outcome as its child reported it: 'P', 'F', 'S', or 0 (none) */
    char *outcome = calloc(n ? n : 1, 1);
    if (!tests || !outcome) return 1;
    n = 0;
    for (struct criterion_test **t = __start_cr_tst; t < __stop_cr_tst; t++)
        if (*t) tests[n++] = *t;
    qsort(tests, n, sizeof *tests, by_name);
    fail_log = stderr;

    /* suites of tests[from, to); up to `jobs` children at once, each with a pipe for its
     * lines, read when it ends (a child's lines, about 50 bytes a test, fit the pipe's
     * buffer for up to about a thousand tests) */
    struct child { pid_t pid; int fd; size_t from, to, id; } *kids = calloc((size_t)jobs, sizeof *kids);
    if (!kids) return 1;
    size_t next = 0, tested = 0, passed = 0, failed = 0, crashed = 0, skipped = 0, nchildren = 0;
    long live = 0;
    for (;;) {
        while (live < jobs && next < n) {
            size_t to = suite_end(tests, n, next);
            bool ok = true;
            for (size_t i = next; i < to; i++) ok &= supported(tests[i]);
            if (!ok) {
                printf("SUITE %s %zu 0 0 0 unsupported 0\n", tests[next]->category, to - next);
                fflush(stdout);
                next = to;
                continue;
            }
            /* more supported suites for the same child, up to `per` in all */
            for (long more = 1; more < per && to < n; more++) {
                size_t end = suite_end(tests, n, to);
                bool all = true;
                for (size_t i = to; i < end; i++) all &= supported(tests[i]);
                if (!all) break;
                to = end;
            }
            int p[2];
            if (pipe(p)) return 1;
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) return 1;
            if (pid == 0) {
                close(p[0]);
                for (size_t from = next; from < to; from = suite_end(tests, n, from))
                    run_suite(tests, from, suite_end(tests, n, from), p[1]);
                exit(0);   /* exit(), not _exit(): LeakSanitizer checks here */
            }
            close(p[1]);
            long k = 0;
            while (kids[k].pid) k++;
            kids[k] = (struct child){pid, p[0], next, to, ++nchildren};
            live++;
            next = to;
        }
        if (!live) break;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        long k = 0;
        while (k < jobs && kids[k].pid != pid) k++;
        if (k == jobs) continue;
        struct child c = kids[k];
        kids[k].pid = 0;
        live--;
        FILE *in = fdopen(c.fd, "r");
        char line[4096];
        while (in && fgets(line, sizeof line, in)) {
            char *end;
            size_t i = strtoul(line + 1, &end, 10);
            if (i >= c.from && i < c.to && end != line + 1 && strchr("PFS", line[0])) outcome[i] = line[0];
        }
        if (in) fclose(in);
        bool exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        for (size_t from = c.from; from < c.to; from = suite_end(tests, n, from)) {
            size_t to = suite_end(tests, n, from), p = 0, f = 0, s = 0;
            for (size_t i = from; i < to; i++) {
                p += outcome[i] == 'P';
                f += outcome[i] == 'F';
                s += outcome[i] == 'S';
            }
            size_t nt = to - from;
            /* the child's exit judges every suite it ran: a leak or a report at its exit
             * cannot be told to belong to one of them */
            bool clean = exited && p + f + s == nt;
            printf("SUITE %s %zu %zu %zu %zu %s %zu\n", tests[from]->category, nt, p, f, s,
                   clean ? (f ? "failed" : "ok") : WIFSIGNALED(status) ? "signal" : "exit", c.id);
            tested += nt;
            passed += p;
            skipped += s;
            if (clean) failed += f;
            else crashed += nt - p - s;
        }
        fflush(stdout);
    }
    printf("[====] Synthesis: Tested: %zu | Passing: %zu | Failing: %zu | Crashing: %zu\n", tested, passed,
           failed, crashed);
    free(kids);
    free(tests);
    free(outcome);
    (void)skipped;
    return failed || crashed ? 1 : 0;
}
