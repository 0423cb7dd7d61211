/* A program built against the installed library (pkg-config --cflags --libs --static clarity):
 * loads every application the arguments name, one per core, and prints each one's task time,
 * GC share and longest stage. `make check` builds and runs it (tests/api/run.sh). */
#include <stdio.h>
#include <clarity/model.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LOG|DIR...\n", argv[0]);
        return 2;
    }
    struct clarity_app_set set;
    struct clarity_error err = {0};
    if (clarity_load_set((const char *const *)argv + 1, (size_t)(argc - 1), NULL, &set, &err)) {
        char buf[1200];
        fprintf(stderr, "%s\n", clarity_error_format(&err, buf, sizeof buf));
        clarity_app_set_free(&set);
        return 3;
    }
    for (size_t i = 0; i < set.n; i++) {
        const struct clarity_app *a = set.apps[i].app;
        if (!a) continue;   /* set.apps[i].err says why */
        struct clarity_app_totals t;
        if (clarity_totals_compute(a, &t)) continue;
        const struct clarity_stage *longest = NULL;
        int64_t longest_ms = -1;
        for (size_t s = 0; s < a->nstages; s++) {
            int64_t ms = clarity_stage_duration_ms(a, &a->stages[s]);
            if (ms > longest_ms) longest_ms = ms, longest = &a->stages[s];
        }
        printf("%s: %lld tasks, %.1f s of task time, GC %.1f%% of run time", clarity_app_str(a, a->app_id),
               (long long)t.app.tasks, (double)t.app.task_ms / 1e3,
               t.app.run_ms > 0 ? 100.0 * (double)t.app.gc_ms / (double)t.app.run_ms : 0.0);
        if (longest)
            printf("; longest stage %lld (%s), %.1f s", (long long)longest->stage_id,
                   clarity_app_str(a, longest->name), (double)longest_ms / 1e3);
        printf("\n");
        clarity_totals_free(&t);
    }
    clarity_app_set_free(&set);
    return 0;
}
