/* What the iQCAR steps share inside the feature: the compact task table read from the models
 * and the per-task record computed from it on demand.
 *
 * A full struct iqcar_task is ~290 bytes; kept for every task of a 10 M-task log it took
 * 2.9 GB beside the model. The table keeps ~24 bytes a task (model row, stage, host, the
 * slots-offered proxy, where its accumulables are) and the analysis recomputes a task's record
 * from the model each time it needs it: once in task order for the graph's levels 0-3, once
 * per host for the blame sweep. The recomputation is the very code the table was filled with,
 * so every figure is bit for bit what a stored record held. */
#ifndef CLARITY_IQCAR_INTERNAL_H
#define CLARITY_IQCAR_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "clarity/contention.h"

#define IQ_NONE UINT32_MAX

/* The instrumented accumulables and the SQL scan time of the task rows that have any: per row
 * its mask of metrics present and where their values start in v (present ones only, in metric
 * order). */
enum { IQ_X_SCAN = IQ_NACC, IQ_X_N };
struct iqcar_accs {
    uint16_t *have; uint32_t *off; size_t n, cap;
    double *v; size_t nv, capv;
};

struct iqcar_tasktab {
    const struct clarity_app *const *apps;   /* the models, valid while the analysis runs */
    size_t napps;
    size_t *first;                          /* napps + 1: the first task of each application */
    uint32_t *row;                          /* per task: its row in its application's model */
    uint32_t *stage, *host;                 /* per task: global stage and host index */
    uint32_t *offers;                       /* per task: launches on its host while it waited */
    uint32_t *acc;                          /* per task: its entry in accs, or IQ_NONE */
    struct iqcar_accs accs;
};

/* The record of task i: copied from r->tasks when the caller built the table by hand (the
 * tests), else computed from the models. */
void clarity__iqcar_task_get(const struct iqcar_result *r, size_t i, struct iqcar_task *t);
/* Fills t from row i of application a (the wait and data of every sub-type, RATPs; slots
 * offered from the accumulables when instrumented, else 1 + offers), counting in src (may be
 * NULL) where the figures came from. */
void clarity__iqcar_task_compute(const struct clarity_app *a, size_t i, uint32_t stage, uint32_t unit, uint32_t host,
                                 const struct iqcar_accs *accs, uint32_t acc, uint32_t offers,
                                 const struct iqcar_options *o, struct iqcar_task *t, struct iqcar_sources *src);
/* The accumulables (and sidecar values) of every row of a into accs; per row its entry in
 * row_acc (a->tasks.n entries, IQ_NONE for none). Counts src->sidecar_tasks. 0, or -1 when out
 * of memory. */
int clarity__iqcar_accs_read(const struct clarity_app *a, const struct iqcar_options *o, struct iqcar_accs *accs,
                             uint32_t *row_acc, struct iqcar_sources *src);
void clarity__iqcar_tasktab_free(struct iqcar_tasktab *tab);

/* Indices 0..n) of the items with end > start, ordered by start then index (a stable LSD
 * radix sort); returns how many. tmp holds n entries. */
size_t clarity__iqcar_order_by_start(const int64_t *start, const int64_t *end, size_t n, uint32_t *out, uint32_t *tmp);

/* The blame of every overlapping pair of tasks on every host (levels 4 of the graph are built
 * from what it adds up): see iqcar_blame.c. */
struct iqcar_blame_out {
    struct clarity_idmap be_map;           /* (DE node, source) -> entry of bes */
    struct iqcar_be { uint32_t de, src; double vc; } *bes; size_t nbes, cap_bes;
    struct clarity_idmap cell_map;         /* target unit x source unit -> entry of cells */
    struct iqcar_cell *cells; size_t ncells, cap_cells;
    size_t pairs;
};
/* Adds vc to the blame entry of (DE node de, source src), creating it (in call order) when new;
 * its index, or IQ_NONE when out of memory. */
uint32_t clarity__iqcar_be_add(struct iqcar_blame_out *o, uint32_t de, uint32_t src, size_t nsrc, double vc);
/* Sweeps every host; dem maps (stage x host) to the first DE node of a target task's stage on
 * that host. 0, or -1 when out of memory. */
int clarity__iqcar_blame_hosts(const struct iqcar_result *r, const struct clarity_idmap *dem, struct iqcar_blame_out *o);

/* The replay answers' cost: at most this many task replays (candidates x tasks), but never
 * fewer than CLARITY_IQ_REPLAY_MIN_CAND candidates. A task replay costs about 85 ns, summary
 * about 5-8 us a task: a 1 M-task log replays 16 candidates (+0.2x summary's CPU), a 10 M-task
 * log 6 (+0.1x), within the 1.5x contention is held to (docs/contention.md). */
#define CLARITY_IQ_REPLAY_BUDGET ((size_t)16 << 20)
#define CLARITY_IQ_REPLAY_MIN_CAND 6
/* The replay answers (iqcar_replay.c): r->replay, r->aggressive_replay, each target's replay
 * list; needs the heaviest and victim-time rankings. 0, or -1 when out of memory. */
int clarity__iqcar_replay(struct iqcar_result *r);
/* The replay's workload read from the models now (when the replay will run), kept in
 * r->replay_prep for clarity__iqcar_replay. 0, or -1 when out of memory. */
int clarity__iqcar_replay_prepare(struct iqcar_result *r);
void clarity__iqcar_replay_prep_free(struct iqcar_replay_prep *p);

/* The rules (and the largest query concurrency they use) from the ranked answers. 0, or -1
 * when out of memory. */
int clarity__iqcar_rules(struct iqcar_result *r);

/* A target task: of an L1 stage (--critical-path: on the query's critical path), and with
 * --successful-only a successful attempt (by default every attempt with metrics counts). */
static inline bool clarity__iqcar_is_target(const struct iqcar_result *r, const struct iqcar_task *t)
{
    return (!r->opt.successful_only || t->ok) && (!r->opt.critical_path || r->stages[t->stage].critical);
}

#endif
