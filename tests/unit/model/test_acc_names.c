/* Task accumulables kept by name in a lean load (clarity_load_options.task_accumulable_names):
 * the lines that may hold one of the names are read whole, the others lean, and the model must
 * hold exactly the full load's accumulables of those names, in the same order, whether the
 * task events are decoded on worker threads or not. And the check that decides which lines are
 * read whole, on lines made to fool it. */
#include <criterion/criterion.h>
#include "load_helpers.h"
#include "model/decode/blank.h"

static const char *const wanted[] = {"scan time", "iqcar.cpu.blockedTime"};

static bool absent(const char *line, const char *const *names, size_t n)
{
    struct blank_names b;
    clarity_blank_names_init(&b, names, n);
    return clarity_blank_names_absent(line, strlen(line), &b);
}

#define END "{\"Event\":\"SparkListenerTaskEnd\",\"Task Info\":{\"Task ID\":1,\"Accumulables\":["
Test(acc_names, absent_only_when_provably_so)
{
    cr_expect(absent(END "{\"ID\":1,\"Name\":\"duration\",\"Update\":5}]},\"Task Metrics\":{}}", wanted, 2));
    cr_expect(!absent(END "{\"ID\":1,\"Name\":\"scan time\",\"Update\":5}]},\"Task Metrics\":{}}", wanted, 2));
    cr_expect(!absent(END "{\"ID\":1,\"Name\":\"iqcar.cpu.blockedTime\",\"Update\":5}]}}", wanted, 2));
    /* a longer or shorter name is another name */
    cr_expect(absent(END "{\"ID\":1,\"Name\":\"scan times\",\"Update\":5},{\"Name\":\"scan\"}]}}", wanted, 2));
    /* what cannot be told: an escape anywhere, a Name that is no plain string, "Name" as a value */
    cr_expect(!absent(END "{\"ID\":1,\"Name\":\"sc\\u0061n time\",\"Update\":5}]}}", wanted, 2));
    cr_expect(!absent(END "{\"ID\":1,\"Name\":7,\"Update\":5}]}}", wanted, 2));
    cr_expect(!absent(END "{\"ID\":1,\"Name\" : \"scan time\"}]}}", wanted, 2));
    cr_expect(!absent(END "{\"ID\":1,\"Update\":\"Name\"}]}}", wanted, 2));
    /* names that raw text cannot show, or none */
    const char *odd[] = {"a\"b"}, *empty[] = {""};
    cr_expect(!absent(END "{\"ID\":1,\"Name\":\"duration\"}]}}", odd, 1));
    cr_expect(!absent(END "{\"ID\":1,\"Name\":\"duration\"}]}}", empty, 1));
    cr_expect(absent(END "{\"ID\":1,\"Name\":\"scan time\"}]}}", wanted, 0));
    /* other events hold no task accumulables */
    cr_expect(absent("{\"Event\":\"SparkListenerStageCompleted\",\"Name\":\"scan time\"}", wanted, 2));
}

/* A log of n tasks whose accumulables mix wanted and other names, some with escapes or string
 * values. */
static char *make_log(const char *version, int n)
{
    size_t cap = (size_t)n * 1024 + 4096, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len,
                            "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"%s\"}\n"
                            "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"App ID\":\"app-1\",\"Timestamp\":1000,\"User\":\"u\"}\n",
                            version);
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(s + len, cap - len,
                                "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task Info\":{\"Task ID\":%d,"
                                "\"Index\":%d,\"Attempt\":0,\"Launch Time\":%d,\"Executor ID\":\"1\",\"Host\":\"h\"}}\n",
                                i, i, 2000 + i);
        len += (size_t)snprintf(s + len, cap - len,
                                "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},"
                                "\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":0,\"Launch Time\":%d,\"Executor ID\":\"1\",\"Host\":\"h\","
                                "\"Finish Time\":%d,\"Accumulables\":[{\"ID\":1,\"Name\":\"internal.metrics.executorRunTime\",\"Update\":%d,\"Value\":%d,\"Internal\":true}",
                                i, i, 2000 + i, 2100 + i, 100, 100 * (i + 1));
        if (i % 3 == 0)
            len += (size_t)snprintf(s + len, cap - len, ",{\"ID\":7,\"Name\":\"scan time\",\"Update\":\"%d\",\"Value\":\"%d\",\"Metadata\":\"sql\"}", i, 7 * i);
        if (i % 5 == 1)
            len += (size_t)snprintf(s + len, cap - len, ",{\"ID\":9,\"Name\":\"iqcar.cpu.blockedTime\",\"Update\":%d,\"Value\":%d}", 3 * i, 9 * i);
        if (i % 7 == 2)   /* an escape: the line is read whole, and nothing of it is wanted */
            len += (size_t)snprintf(s + len, cap - len, ",{\"ID\":11,\"Name\":\"odd \\\"quoted\\\"\",\"Update\":1}");
        if (i % 11 == 4)   /* a wanted name with a value that is no plain integer */
            len += (size_t)snprintf(s + len, cap - len, ",{\"ID\":7,\"Name\":\"scan time\",\"Update\":\"12 ms\"}");
        len += (size_t)snprintf(s + len, cap - len,
                                "]},\"Task Executor Metrics\":{\"JVMHeapMemory\":%d},\"Task Metrics\":{\"Executor Run Time\":%d,\"Executor CPU Time\":%d}}\n",
                                1000 + i, 100, 50000000);
    }
    return s;
}

static struct clarity_app *load(const char *path, const struct clarity_load_options *o)
{
    struct clarity_log_file f = {.path = (char *)path};
    struct clarity_app_source src = {.path = (char *)path, .files = &f, .nfiles = 1};
    struct clarity_error err;
    struct clarity_app *a = NULL;
    cr_assert_eq(clarity_app_load(&src, o, &a, &err), CLARITY_OK);
    return a;
}

static bool is_wanted(const struct clarity_app *a, const struct clarity_accum *x)
{
    const char *nm = clarity_app_str(a, x->name);
    return !strcmp(nm, wanted[0]) || !strcmp(nm, wanted[1]);
}

static void same_as_full(const char *version, int threads)
{
    char *log = make_log(version, 400);
    char path[] = "/tmp/clarity-accnames-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(log, f);
    fclose(f);
    free(log);
    struct clarity_load_options full = {.keep_task_accumulables = true, .threads = threads},
                                named = {.skip_task_executor_metrics = true, .threads = threads,
                                         .task_accumulable_names = wanted, .ntask_accumulable_names = 2};
    struct clarity_app *a = load(path, &full), *b = load(path, &named);
    remove(path);
    cr_assert_eq(a->tasks.n, 400);
    cr_assert_eq(b->tasks.n, a->tasks.n);
    size_t k = 0, kept = 0;
    for (size_t i = 0; i < a->task_accums.n; i++) {
        const struct clarity_accum *x = &a->task_accums.p[i];
        if (!is_wanted(a, x)) continue;
        kept++;
        cr_assert_lt(k, b->task_accums.n, "%s threads %d: accumulable %zu missing", version, threads, i);
        const struct clarity_accum *y = &b->task_accums.p[k++];
        char t1[64], t2[64];
        cr_expect(x->owner == y->owner && x->id == y->id && x->update == y->update && x->value == y->value &&
                      x->has_update == y->has_update && x->internal == y->internal && x->is_sql == y->is_sql,
                  "%s threads %d: accumulable %zu differs", version, threads, i);
        cr_expect_str_eq(clarity_app_str(a, x->name), clarity_app_str(b, y->name));
        cr_expect_str_eq(clarity_accum_text(a, x, true, t1, sizeof t1), clarity_accum_text(b, y, true, t2, sizeof t2));
    }
    cr_expect_eq(b->task_accums.n, k, "%s threads %d: %zu kept, %zu wanted", version, threads, b->task_accums.n, k);
    cr_expect_eq(kept, 134 + 80 + 36, "the log has the wanted accumulables it was made with");
    for (size_t i = 0; i < a->tasks.n; i++)
        for (int m = 0; m < CLARITY_TM_COUNT; m++) cr_expect_eq(clarity_task_metric(a, i, m), clarity_task_metric(b, i, m));
    clarity_app_free(a);
    clarity_app_free(b);
}

Test(acc_names, kept_by_name_as_in_a_full_load)
{
    same_as_full("3.5.0", 0);   /* task events decoded on worker threads */
    same_as_full("3.5.0", 1);   /* all on one thread */
    same_as_full("2.4.8", 0);   /* accumulables never blanked before 3.0 */
}
