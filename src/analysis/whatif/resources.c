/* The monotask-style resource model over Spark logs (thesis 5.6): per stage, the time each
 * resource would need if perfectly used; the slowest is the stage. The thesis measured 20-30%
 * typical error for it on Spark even with perfect resource counters, and logs hold less; every
 * result says so. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
#include "clarity/sim.h"
#include "clarity/whatif.h"
#include "sim/components.h"
#include "sim/workers.h"

const char *clarity_wres_name(int r)
{
    static const char *const n[CLARITY_WRES_COUNT] = {"cpu", "disk", "network"};
    return r >= 0 && r < CLARITY_WRES_COUNT ? n[r] : "-";
}

const char *clarity_scenario_name(int s)
{
    static const char *const n[CLARITY_SCEN_COUNT] = {"observed", "whatif", "cpu_infinite", "disk_infinite",
                                                      "network_infinite"};
    return s >= 0 && s < CLARITY_SCEN_COUNT ? n[s] : "?";
}

void clarity_ideal_compute(const struct clarity_stage_usage *u, const struct clarity_hw *hw, int infinite,
                           struct clarity_ideal *out)
{
    double hosts = hw->v[CLARITY_HW_HOSTS];
    double cores = clarity_hw_cores(hw);
    double disk_bps = hosts * hw->v[CLARITY_HW_DISKS_PER_HOST] * hw->v[CLARITY_HW_DISK_MB_S] * 1e6;
    double net_bps = hosts * hw->v[CLARITY_HW_NET_GBPS] * 125e6;   /* 1 Gbps = 125 MB/s */
    out->ms[CLARITY_WRES_CPU] = cores > 0 ? u->cpu_ms / cores : 0;
    out->ms[CLARITY_WRES_DISK] = disk_bps > 0 ? u->disk_bytes / disk_bps * 1e3 : 0;
    out->ms[CLARITY_WRES_NETWORK] = net_bps > 0 ? u->net_bytes / net_bps * 1e3 : 0;
    out->model_ms = 0;
    out->bottleneck = -1;
    for (int r = 0; r < CLARITY_WRES_COUNT; r++) {
        if (r == infinite) continue;
        if (out->ms[r] > out->model_ms) { out->model_ms = out->ms[r]; out->bottleneck = r; }
    }
}

double clarity_whatif_predict(double actual, double model_old, double model_new)
{
    return model_old > 0 ? actual * model_new / model_old : actual;
}

double clarity_prediction_error(double predicted, double actual)
{
    return actual != 0 ? fabs(predicted - actual) / fabs(actual) : 0;
}

double clarity_slot_model_predict(double actual, double old_slots, double new_slots)
{
    return new_slots > 0 ? actual * old_slots / new_slots : actual;
}

int clarity_monospark_multitasks(int cores, int disks, bool ssd, int network)
{
    return cores + disks * (ssd ? 4 : 1) + network + 1;
}

double clarity_mb_per_cpu_s(double disk_bytes, double cpu_ms)
{
    return cpu_ms > 0 ? (disk_bytes / 1e6) / (cpu_ms / 1e3) : 0;
}

void clarity_resources_free(struct clarity_resource_result *r)
{
    free(r->stages);
    free(r->jobs);
    memset(r, 0, sizeof *r);
}

/* Adds one task's usage: CPU = executor + deserialize CPU time; without CPU time (before
 * Spark 2.1) the run time minus what it was blocked on (fetch wait, shuffle write). Disk bytes =
 * shuffle write + shuffle read (local + remote: read from the map side's disks) + input when on
 * disk + output x replication (when not to an object store) + 2 x spilled bytes; network
 * bytes = remote shuffle bytes read + input from and output to an object store (a remote
 * service reached through the host's link; its own replication is not the hosts'). */
static void add_task(const struct clarity_app *a, const struct clarity_task_comp *c, const struct clarity_hw *hw,
                     struct clarity_whatif_stage *s)
{
    size_t row = c->row;
    if (c->cpu_logged) s->use.cpu_ms += c->cpu_ms + c->deser_cpu_ms;
    else {
        s->use.cpu_ms += clarity_task_compute_ms(c);
        s->cpu_fallback_tasks++;
    }
    bool in_disk = hw->v[CLARITY_HW_INPUT_ON_DISK] > 0, in_net = !in_disk && hw->input_remote;
    double disk = (double)c->shuffle_write_bytes + (double)c->shuffle_read_bytes +
                  (in_disk ? (double)c->input_bytes : 0) +
                  (hw->output_remote ? 0 : (double)c->output_bytes * hw->v[CLARITY_HW_REPLICATION]) +
                  2.0 * (double)clarity_task_metric(a, row, CLARITY_TM_DISK_SPILLED);
    s->use.disk_bytes += disk;
    s->use.net_bytes += (double)clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BYTES) +
                        (in_net ? (double)c->input_bytes : 0) + (hw->output_remote ? (double)c->output_bytes : 0);
    s->tasks++;
}

static const struct clarity_hw *scen_hw(const struct clarity_resource_result *r, int k)
{
    return &r->scen[k].hw;
}

struct stage_job {
    const struct clarity_task_view *v;
    const struct clarity_hw *hw;
    struct clarity_whatif_stage *out;    /* per item: the stage attempts with tasks, by row */
    struct clarity__stage_span *span;    /* per stage attempt row */
    struct clarity_task_comp **comps;    /* per worker */
};

/* one stage's usage, its tasks added in row order as they always were */
static int one_stage(void *ctx, size_t item, size_t worker, struct clarity_error *err)
{
    (void)err;
    struct stage_job *j = ctx;
    struct clarity_whatif_stage *w = &j->out[item];
    size_t m = clarity_task_view_stage_size(j->v, w->row);
    struct clarity_task_comp *c = j->comps[worker];
    clarity_task_view_stage_comps(j->v, w->row, c);
    for (size_t k = 0; k < m; k++) add_task(j->v->app, &c[k], j->hw, w);
    clarity__stage_span_of(c, m, &j->span[w->row]);
    return 0;
}

static int stage_pass(const struct clarity_task_view *v, const struct clarity_hw *hw, int threads,
                      struct clarity_resource_result *out, struct clarity__stage_span *span, struct clarity_error *err)
{
    size_t nw = clarity__workers_count(threads, out->nstages), big = v->max_stage ? v->max_stage : 1;
    struct clarity_task_comp **comps = calloc(nw, sizeof *comps);
    bool ok = comps != NULL;
    for (size_t i = 0; ok && i < nw; i++) ok = (comps[i] = malloc(big * sizeof **comps)) != NULL;
    int rc;
    if (ok) {
        struct stage_job j = {v, hw, out->stages, span, comps};
        rc = clarity__workers_run(threads, out->nstages, one_stage, &j, err);
    } else rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the resource model");
    for (size_t i = 0; comps && i < nw; i++) free(comps[i]);
    free(comps);
    return rc;
}

int clarity_resources_analyze(const struct clarity_app *a, const struct clarity_hw *base,
                              const struct clarity_hw *whatif, int threads, struct clarity_resource_result *out,
                              struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    struct clarity_task_view v;
    struct clarity_groups g = {0};
    struct clarity_replay_component *comp = NULL;
    struct clarity__stage_span *span = NULL;
    uint32_t *units = NULL;
    long *stage_slot = NULL;
    double (*jm)[CLARITY_SCEN_COUNT] = NULL;   /* model per job row and scenario */
    size_t ncomp = 0;
    int rc = clarity_task_view_build(a, &v, err);
    if (rc) return rc;
    size_t ns = a->nstages;
    stage_slot = malloc((ns ? ns : 1) * sizeof *stage_slot);
    span = calloc(ns ? ns : 1, sizeof *span);
    units = malloc((ns ? ns : 1) * sizeof *units);
    out->stages = calloc(ns ? ns : 1, sizeof *out->stages);
    out->jobs = calloc(a->njobs ? a->njobs : 1, sizeof *out->jobs);
    jm = calloc(a->njobs ? a->njobs : 1, sizeof *jm);
    if (!jm || !stage_slot || !span || !units || !out->stages || !out->jobs) goto oom;
    if ((rc = clarity_groups_build(&v, CLARITY_GROUP_JOB, &g, err))) goto fail;

    /* stages in order of their rows (the log's order), with their job */
    size_t nu = clarity__stages_with_tasks(&v, units);
    for (size_t s = 0; s < ns; s++) stage_slot[s] = -1;
    for (size_t i = 0; i < nu; i++) {
        stage_slot[units[i]] = (long)i;
        out->stages[i].row = units[i];
        out->stages[i].job = -1;
    }
    out->nstages = nu;
    for (size_t i = 0; i < g.n; i++)
        for (size_t k = 0; k < g.g[i].nstages; k++) out->stages[stage_slot[g.g[i].stages[k]]].job = (long)g.g[i].row;
    if ((rc = stage_pass(&v, base, threads, out, span, err))) goto fail;
    out->tasks = v.counts.n;

    for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
        struct clarity_whatif_scenario *sc = &out->scen[k];
        sc->present = k != CLARITY_SCEN_WHATIF || whatif;
        sc->hw = k == CLARITY_SCEN_WHATIF && whatif ? *whatif : *base;
        sc->infinite = k >= CLARITY_SCEN_INF_CPU ? k - CLARITY_SCEN_INF_CPU : -1;
    }
    for (size_t i = 0; i < out->nstages; i++) {
        struct clarity_whatif_stage *w = &out->stages[i];
        clarity_ideal_compute(&w->use, base, -1, &w->ideal);
        out->cpu_fallback_tasks += w->cpu_fallback_tasks;
        out->total.cpu_ms += w->use.cpu_ms;
        out->total.disk_bytes += w->use.disk_bytes;
        out->total.net_bytes += w->use.net_bytes;
        for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
            struct clarity_whatif_scenario *sc = &out->scen[k];
            if (!sc->present) continue;
            struct clarity_ideal id;
            clarity_ideal_compute(&w->use, scen_hw(out, k), sc->infinite, &id);
            sc->model_ms += id.model_ms;
            if (id.bottleneck >= 0) sc->bottleneck_stages[id.bottleneck]++;
            if (w->job >= 0) jm[w->job][k] += id.model_ms;
        }
    }
    out->mb_per_cpu_s = clarity_mb_per_cpu_s(out->total.disk_bytes, out->total.cpu_ms);

    /* The part of the wall time when tasks ran scales with the model; driver-only time stays. */
    if ((rc = clarity__components_build(&v, span, units, nu, &comp, &ncomp, err))) goto fail;
    struct clarity_replay_plan spans_only = {.comp = comp, .ncomp = ncomp};   /* all driver time reads */
    clarity_app_driver_time(a, &spans_only, &out->actual_ms, &out->driver_ms);
    double base_model = out->scen[CLARITY_SCEN_BASE].model_ms;
    for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
        struct clarity_whatif_scenario *sc = &out->scen[k];
        if (!sc->present) continue;
        sc->predicted_ms = (double)out->driver_ms +
                           clarity_whatif_predict((double)(out->actual_ms - out->driver_ms), base_model, sc->model_ms);
    }

    /* jobs, by id, with their task span when the log lacks the job's end */
    size_t nj = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct clarity_group *gr = &g.g[i];
        if (gr->ntasks == 0) continue;
        struct clarity_whatif_job *j = &out->jobs[nj++];
        memcpy(j->model_ms, jm[gr->row], sizeof j->model_ms);
        j->row = gr->row;
        j->job_id = gr->id;
        j->stages = gr->nstages;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        double biggest = -1;
        j->bottleneck = -1;
        for (size_t k = 0; k < gr->nstages; k++) {   /* the job's stages, in row order */
            const struct clarity__stage_span *sp = &span[gr->stages[k]];
            if (sp->first_ms < lo) lo = sp->first_ms;
            if (sp->last_ms > hi) hi = sp->last_ms;
            const struct clarity_whatif_stage *w = &out->stages[stage_slot[gr->stages[k]]];
            if (w->ideal.model_ms > biggest) {
                biggest = w->ideal.model_ms;
                j->bottleneck = w->ideal.bottleneck;
            }
        }
        j->actual_ms = clarity_job_duration_ms(a, &a->jobs[gr->row]);
        if (j->actual_ms < 0) j->actual_ms = hi - lo;
        for (int k = 0; k < CLARITY_SCEN_COUNT; k++)
            j->predicted_ms[k] = clarity_whatif_predict((double)j->actual_ms, j->model_ms[CLARITY_SCEN_BASE], j->model_ms[k]);
    }
    out->njobs = nj;
    goto done;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the resource model");
fail:
    clarity_resources_free(out);
done:
    clarity_groups_free(&g);
    clarity_task_view_free(&v);
    free(stage_slot); free(span); free(units); free(comp); free(jm);
    return rc;
}
