/* A LADRA model from `clarity synth` runs: each run's factors, as the analysis computes them,
 * labelled by the fault injected into it. */
#include <stdio.h>
#include <unistd.h>
#include "analysis/anomalies/ladra_train.h"

/* Both modes of one loaded run: the log-based one only when its logs were read. */
static int add_run(struct ladra_model *m, const struct clarity_app *a, const struct clarity_logs *L, bool have_logs,
                   int label, size_t runs[LADRA_NCLASS], struct clarity_error *err)
{
    int rc = CLARITY_OK;
    for (int mode = 0; mode < 2; mode++) {
        bool elo = mode == 1;
        if (!elo && !have_logs) continue;
        struct clarity_anomalies_options o = {.logs = elo ? NULL : L, .method = LADRA_METHOD_RULES};
        clarity_ladra_options_default(&o.det);
        struct clarity_anomalies_result r;
        if (clarity_anomalies_analyze(a, &o, &r, err)) {
            rc = err ? err->code : CLARITY_ENOMEM;
            continue;
        }
        if (clarity_ladra_model_add(m, r.run.f, label, elo, err)) rc = err ? err->code : CLARITY_ENOMEM;
        runs[label] += !elo || !have_logs;   /* each run once */
        clarity_anomalies_free(&r);
    }
    return rc;
}

int clarity_ladra_train(const char *const *dirs, size_t ndirs, struct ladra_model *m, size_t runs[LADRA_NCLASS],
                        void (*on_run)(void *ctx, const struct clarity_ladra_train_run *run), void *ctx,
                        struct clarity_error *err)
{
    int rc = CLARITY_OK;
    clarity_error_clear(err);
    for (size_t i = 0; i < ndirs; i++) {
        struct clarity_ladra_train_run run = {.dir = dirs[i], .label = clarity_ladra_truth_label(dirs[i])};
        if (run.label < 0) {
            run.status = CLARITY_LADRA_RUN_NO_TRUTH;
            if (on_run) on_run(ctx, &run);
            continue;
        }
        char ev[4096], ex[4096], gc[4096];
        snprintf(ev, sizeof ev, "%s/eventlogs", dirs[i]);
        snprintf(ex, sizeof ex, "%s/executor-logs", dirs[i]);
        snprintf(gc, sizeof gc, "%s/gc", dirs[i]);
        const char *paths[1] = {ev};
        struct clarity_load_options lo = {.keep_task_accumulables = false, .skip_task_executor_metrics = true, .quiet = true};
        struct clarity_load_set_options so = {.app = &lo};
        struct clarity_app_set set;
        run.events = &set;
        if (clarity_load_set(paths, 1, &so, &set, NULL) != CLARITY_OK || !set.apps[0].app) {
            run.status = CLARITY_LADRA_RUN_NO_EVENT_LOG;
            if (on_run) on_run(ctx, &run);
            clarity_app_set_free(&set);
            continue;
        }
        /* the log-based mode needs the GC logs; the executor logs only help */
        struct clarity_logs L;
        run.have_logs = !access(gc, R_OK) &&
                        clarity_ladra_logs_read(&L, access(ex, R_OK) ? NULL : ex, gc, 0, &run.logs_err) == CLARITY_OK;
        struct clarity_error e;
        if (add_run(m, set.apps[0].app, &L, run.have_logs, run.label, runs, &e) && !rc) {
            rc = e.code;
            if (err) *err = e;
        }
        if (on_run) on_run(ctx, &run);
        if (run.have_logs) clarity_logs_free(&L);
        clarity_app_set_free(&set);
    }
    return rc;
}
