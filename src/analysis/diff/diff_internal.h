/* What the files of src/analysis/diff/ share: one run's figures per stage, job, SQL query and
 * host, gathered in one pass over its task table, and the steps of clarity_diff_analyze. */
#ifndef CLARITY_DIFF_INTERNAL_H
#define CLARITY_DIFF_INTERNAL_H
#include "clarity/diff.h"

struct diff_host_acc {
    uint32_t host;               /* string id */
    double run_ms, cpu_ms;
    int64_t tasks;
    bool cpu_logged;
};

/* One run. Stages are grouped by stage id (every attempt together: a retried stage is one
 * stage that took longer), skipped stages left out (they ran in another job). */
struct diff_run {
    const struct clarity_app *a;
    size_t nst, njob, nsql, nhost;
    struct clarity_match_key *st_key, *job_key, *sql_key;
    struct clarity_diff_side *st, *job, *sql;
    struct diff_host_acc *host;  /* sorted by host name */
    struct clarity_diff_side app;
    int64_t execs, cores, hosts; /* executors added (not the driver), their cores, their hosts */
};

int clarity__diff_run_build(const struct clarity_app *a, struct diff_run *r);
void clarity__diff_run_free(struct diff_run *r);
/* Runs the findings analysis on both and fills r->findings; needs r->items. 0, or an error
 * with err filled. */
int clarity__diff_findings(const struct clarity_app *a, const struct clarity_app *b, int threads,
                           struct clarity_diff_result *r, struct clarity_error *err);
int clarity__diff_config(const struct clarity_app *a, const struct clarity_app *b, struct clarity_diff_result *r);

#endif
