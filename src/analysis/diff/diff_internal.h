/* What the files of src/analysis/diff/ share: one run's side (its figures per stage, job, SQL
 * query and host gathered in one pass over its task table, its Spark properties and its
 * findings, with copies of every string the comparison or the report prints) and the steps of
 * clarity_diff_compare. A side owns its strings so that its model can be freed before the
 * other run is read: the comparison needs both sides, never both models. */
#ifndef CLARITY_DIFF_INTERNAL_H
#define CLARITY_DIFF_INTERNAL_H
#include "clarity/diff.h"

/* The side's copies of the model's strings, one per string id (a stage name repeated over
 * thousands of stages is copied once). */
struct diff_strs {
    const struct clarity_app *a;
    struct clarity_arena *arena;
    struct clarity_idmap ix;     /* string id -> index in s */
    const char **s;
    size_t n, cap;
};
/* The copy of a's string id, NULL when out of memory. */
const char *clarity__diff_str(struct diff_strs *t, uint32_t id);

struct diff_host_acc {
    uint32_t host;               /* string id in the model the side was built from */
    const char *name;            /* its copy */
    double run_ms, cpu_ms;
    int64_t tasks;
    bool cpu_logged;
};

/* One run. Stages are grouped by stage id (every attempt together: a retried stage is one
 * stage that took longer), skipped stages left out (they ran in another job). Key names and
 * host names are the side's copies. */
struct diff_run {
    size_t nst, njob, nsql, nhost;
    struct clarity_match_key *st_key, *job_key, *sql_key;
    struct clarity_diff_side *st, *job, *sql;
    struct diff_host_acc *host;  /* sorted by host name */
    struct clarity_diff_side app;
    int64_t execs, cores, hosts; /* executors added (not the driver), their cores, their hosts */
};

struct diff_prop {
    const char *k, *v;
};

/* A finding of one side, as the comparison keys it. */
struct diff_finding {
    int kind;                    /* enum clarity_finding_kind */
    unsigned where;              /* CLARITY_FW_* mask */
    int64_t job, sql, stage, saving_ms;
    const char *title, *host, *executor;
};

struct clarity_diff_app {
    struct clarity_arena arena;  /* owns the strings and the properties and findings arrays */
    struct clarity_diff_ident id;
    struct diff_run run;
    struct diff_prop *props;     /* Spark properties, sorted by key */
    size_t nprops;
    const char *self[3];         /* the run's own identities: application id, attempt id, driver host */
    struct diff_finding *findings;
    size_t nfindings;
    bool findings_run;
};

int clarity__diff_run_build(const struct clarity_app *a, struct diff_strs *t, struct diff_run *r);
void clarity__diff_run_free(struct diff_run *r);
/* The side's Spark properties and identities (diff_config.c). */
int clarity__diff_props(const struct clarity_app *a, struct diff_strs *t, struct clarity_diff_app *s);
/* Runs the findings analysis on a and keeps its findings in s (diff_findings.c). */
int clarity__diff_findings_run(const struct clarity_app *a, int threads, struct clarity_diff_app *s,
                               struct clarity_error *err);
/* Keys both sides' findings and fills r->findings; needs r->items. 0, or an error with err
 * filled. */
int clarity__diff_findings(const struct clarity_diff_app *a, const struct clarity_diff_app *b,
                           struct clarity_diff_result *r, struct clarity_error *err);
int clarity__diff_config(const struct clarity_diff_app *a, const struct clarity_diff_app *b, struct clarity_diff_result *r);

#endif
