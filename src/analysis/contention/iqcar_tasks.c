/* One task attempt as iQCAR sees it: the wait time and data processed of each resource
 * sub-type (Table 4) from the log, its instrumented accumulables or a sidecar CSV, or the
 * labelled standard-log proxies (slots offered, CPU wait); and the names of resources, sub-types
 * and units. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"

static const char *const res_names[IQ_NRES] = {"SLOTS", "CPU", "MEMORY", "NETWORK", "IO"};
static const char *const sub_names[IQ_NSUB] = {
    "SWT/slots_offered", "CPU_BLOCKED/input_bytes", "CPU_WAITED/input_bytes",
    "STORAGE_MEM_WAIT/storage_asked", "EXECUTION_MEM_WAIT/execution_asked",
    "FETCH_WAIT/remote_bytes_read", "IO_READ_WAIT/io_bytes_read", "IO_WRITE_WAIT/io_bytes_written"};
static const int sub_res[IQ_NSUB] = {IQ_SLOTS, IQ_CPU, IQ_CPU, IQ_MEM, IQ_MEM, IQ_NET, IQ_IO, IQ_IO};
static const char *const unit_names[] = {"auto", "sql", "job", "group", "pool", "app"};

const char *clarity_iqcar_res_name(int r) { return r >= 0 && r < IQ_NRES ? res_names[r] : "?"; }
const char *clarity_iqcar_sub_name(int p) { return p >= 0 && p < IQ_NSUB ? sub_names[p] : "?"; }
int clarity_iqcar_sub_res(int p) { return p >= 0 && p < IQ_NSUB ? sub_res[p] : -1; }
const char *clarity_iqcar_unit_name(int u) { return u >= 0 && u <= IQ_UNIT_APP ? unit_names[u] : "?"; }

void clarity_iqcar_options_default(struct iqcar_options *o)
{
    memset(o, 0, sizeof *o);
    o->k = 3;
    o->p_orig = 1;
    o->replay_candidates = CLARITY_IQ_REPLAY_K;
    static const char *const names[IQ_NACC] = {
        "iqcar.cpu.blockedTime", "iqcar.cpu.waitedTime", "iqcar.mem.storageWaitTime", "iqcar.mem.storageAsked",
        "iqcar.mem.executionWaitTime", "iqcar.mem.executionAsked", "iqcar.sched.slotsOffered"};
    for (int i = 0; i < IQ_NACC; i++) o->acc_names[i] = names[i];
}

/* The SQL metric read as IO read wait, under the names Spark versions give it. */
static const char *const scan_names[] = {"scan time", "scan time total (min, med, max)"};

size_t clarity_iqcar_accumulable_names(const struct iqcar_options *o, const char **names)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof scan_names / sizeof *scan_names; i++) names[n++] = scan_names[i];
    for (int j = 0; j < IQ_NACC; j++)
        if (o->acc_names[j]) names[n++] = o->acc_names[j];
    return n;
}


struct acc_vals { double v[IQ_X_N]; uint16_t have; };

/* The sidecar CSV's values replace the accumulables of the metrics it gives for a task
 * (measured outside the log, so it is the better source when both exist). */
static uint16_t sidecar_values(const struct iqcar_sidecar *sc, const char *app_id, int64_t task_id, int32_t attempt,
                               struct acc_vals *t)
{
    size_t f, m = clarity_iqcar_sidecar_find(sc, task_id, attempt, &f);
    uint16_t seen = 0;
    for (size_t k = f; k < f + m; k++) {
        const struct iqcar_sidecar_row *row = &sc->rows[k];
        if (!clarity_iqcar_sidecar_row_for(sc, row, app_id)) continue;
        uint16_t bit = (uint16_t)(1u << row->metric);
        if (!(seen & bit)) t->v[row->metric] = 0;
        seen |= bit;
        t->v[row->metric] += row->value;
    }
    t->have |= seen;
    return seen;
}

/* Which metric an accumulable name gives, -1 for none. */
static int acc_kind(const char *nm, const struct iqcar_options *o)
{
    if (!strcmp(nm, scan_names[0]) || !strcmp(nm, scan_names[1])) return IQ_X_SCAN;
    for (int j = 0; j < IQ_NACC; j++)
        if (o->acc_names[j] && !strcmp(nm, o->acc_names[j])) return j;
    return -1;
}

struct acc_ref { uint32_t owner, seq; int k; double v; };

static int cmp_acc_ref(const void *x, const void *y)
{
    const struct acc_ref *a = x, *b = y;
    if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int accs_push(struct iqcar_accs *s, const struct acc_vals *x, uint32_t *index)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 256;
        uint16_t *h = realloc(s->have, c * sizeof *h);
        if (!h) return -1;
        s->have = h;
        uint32_t *o = realloc(s->off, c * sizeof *o);
        if (!o) return -1;
        s->off = o, s->cap = c;
    }
    if (s->nv + IQ_X_N > s->capv) {
        size_t c = s->capv ? s->capv * 2 : 1024;
        double *v = realloc(s->v, c * sizeof *v);
        if (!v) return -1;
        s->v = v, s->capv = c;
    }
    if (s->n >= IQ_NONE || s->nv > UINT32_MAX - IQ_X_N) return -1;
    s->have[s->n] = x->have;
    s->off[s->n] = (uint32_t)s->nv;
    for (int k = 0; k < IQ_X_N; k++)
        if (x->have & (1u << k)) s->v[s->nv++] = x->v[k];
    *index = (uint32_t)s->n++;
    return 0;
}

int clarity__iqcar_accs_read(const struct clarity_app *a, const struct iqcar_options *o, struct iqcar_accs *accs,
                             uint32_t *row_acc, struct iqcar_sources *src)
{
    /* the accumulables that matter, in log order, then by row: a row's values add up in the
     * order the log gave them */
    size_t m = 0;
    struct acc_ref *refs = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
        for (size_t i = 0; i < a->task_accums.n; i++) {
            const struct clarity_accum *x = &a->task_accums.p[i];
            if (!x->has_update || x->owner >= a->tasks.n) continue;
            int k = acc_kind(clarity_app_str(a, x->name), o);
            if (k < 0) continue;
            if (pass) refs[n] = (struct acc_ref){x->owner, (uint32_t)n, k, (double)x->update};
            n++;
        }
        if (!pass && !(refs = malloc((n ? n : 1) * sizeof *refs))) return -1;
        m = n;
    }
    qsort(refs, m, sizeof *refs, cmp_acc_ref);
    const char *app_id = clarity_app_str(a, a->app_id);
    int rc = 0;
    for (size_t i = 0, r = 0; i < a->tasks.n && !rc; i++) {
        struct acc_vals x = {0};
        for (; r < m && refs[r].owner == i; r++) {
            x.v[refs[r].k] += refs[r].v;
            x.have |= (uint16_t)(1u << refs[r].k);
        }
        if (o->sidecar &&
            sidecar_values(o->sidecar, app_id, clarity_icol_get(&a->tasks.task_id, i), (int32_t)clarity_icol_get(&a->tasks.attempt, i), &x))
            src->sidecar_tasks++;
        row_acc[i] = IQ_NONE;
        if (x.have) rc = accs_push(accs, &x, &row_acc[i]);
    }
    free(refs);
    return rc;
}

static void accs_get(const struct iqcar_accs *s, uint32_t i, struct acc_vals *x)
{
    memset(x, 0, sizeof *x);
    if (i == IQ_NONE) return;
    x->have = s->have[i];
    const double *v = s->v + s->off[i];
    for (int k = 0; k < IQ_X_N; k++)
        if (x->have & (1u << k)) x->v[k] = *v++;
}

static double dmax0(double x) { return x > 0 ? x : 0; }

/* Wait and data of every sub-type for one task row; slots_offered is filled in later. */
static void task_waits(const struct clarity_app *a, size_t i, const struct acc_vals *x, const struct iqcar_options *o,
                       struct iqcar_task *t, struct iqcar_sources *src)
{
#define M(m) ((double)clarity_task_metric(a, i, CLARITY_TM_##m))
    double run = M(RUN_MS), cpu_ms = M(CPU_NS) / 1e6, fetch = M(SR_FETCH_WAIT_MS), sw_ms = M(SW_TIME_NS) / 1e6;
    double gc = M(GC_MS), scan = (x->have & (1u << IQ_X_SCAN)) ? x->v[IQ_X_SCAN] : 0;
    double input = M(INPUT_BYTES) + M(SR_REMOTE_BYTES) + M(SR_LOCAL_BYTES);
    if (x->have & (1u << IQ_X_SCAN)) src->scan_time++;
    if (x->have & ((1u << IQ_A_CPU_BLOCKED) | (1u << IQ_A_CPU_WAITED))) {
        t->wait[IQ_S_CPU_BLOCKED] = x->v[IQ_A_CPU_BLOCKED];
        t->wait[IQ_S_CPU_WAITED] = x->v[IQ_A_CPU_WAITED];
        src->instrumented_cpu++;
    } else {
        /* proxy: run - CPU - fetch wait - shuffle write - GC, all "blocked", less the scan time:
         * that is IO read wait and would be counted twice */
        t->wait[IQ_S_CPU_BLOCKED] = dmax0(run - cpu_ms - fetch - sw_ms - gc - scan);
    }
    t->data[IQ_S_CPU_BLOCKED] = t->data[IQ_S_CPU_WAITED] = input;
    if (x->have & ((1u << IQ_A_MEM_STORAGE_WAIT) | (1u << IQ_A_MEM_EXEC_WAIT))) src->instrumented_mem++;
    t->wait[IQ_S_MEM_STORAGE] = x->v[IQ_A_MEM_STORAGE_WAIT];
    t->data[IQ_S_MEM_STORAGE] = x->v[IQ_A_MEM_STORAGE_ASKED];
    t->wait[IQ_S_MEM_EXEC] = x->v[IQ_A_MEM_EXEC_WAIT];
    t->data[IQ_S_MEM_EXEC] = x->v[IQ_A_MEM_EXEC_ASKED];
    t->wait[IQ_S_NET] = fetch;
    t->data[IQ_S_NET] = M(SR_REMOTE_BYTES);
    t->wait[IQ_S_IO_READ] = scan;
    t->data[IQ_S_IO_READ] = M(INPUT_BYTES);
    t->wait[IQ_S_IO_WRITE] = sw_ms;
    t->data[IQ_S_IO_WRITE] = M(SW_BYTES) + (o->include_output_bytes ? M(OUTPUT_BYTES) : 0);
    t->weight = M(CPU_NS) > 0 ? M(CPU_NS) : run * 1e6;   /* ns either way */
    if (x->have & (1u << IQ_A_SLOTS_OFFERED)) {
        t->data[IQ_S_SLOTS] = x->v[IQ_A_SLOTS_OFFERED] > 0 ? x->v[IQ_A_SLOTS_OFFERED] : 1;
        src->instrumented_slots++;
    }
#undef M
}

void clarity_iqcar_task_ratps(struct iqcar_task *t, struct iqcar_sources *src)
{
    for (int p = 0; p < IQ_NSUB; p++) {
        t->ratp[p] = iqcar_ratp(t->wait[p], t->data[p]);
        if (t->wait[p] > 0 && t->data[p] <= 0) src->wait_without_data[p]++;
    }
    t->ie_ratp[IQ_SLOTS] = t->ratp[IQ_S_SLOTS];
    t->ie_ratp[IQ_CPU] = iqcar_ratp(t->wait[IQ_S_CPU_BLOCKED] + t->wait[IQ_S_CPU_WAITED], t->data[IQ_S_CPU_BLOCKED]);
    t->ie_ratp[IQ_MEM] = iqcar_ratp(t->wait[IQ_S_MEM_STORAGE] + t->wait[IQ_S_MEM_EXEC],
                                    t->data[IQ_S_MEM_STORAGE] + t->data[IQ_S_MEM_EXEC]);
    t->ie_ratp[IQ_NET] = t->ratp[IQ_S_NET];
    t->ie_ratp[IQ_IO] = iqcar_ratp(t->wait[IQ_S_IO_READ] + t->wait[IQ_S_IO_WRITE],
                                   t->data[IQ_S_IO_READ] + t->data[IQ_S_IO_WRITE]);
}


void clarity__iqcar_task_compute(const struct clarity_app *a, size_t i, uint32_t stage, uint32_t unit, uint32_t host,
                                 const struct iqcar_accs *accs, uint32_t acc, uint32_t offers,
                                 const struct iqcar_options *o, struct iqcar_task *t, struct iqcar_sources *src)
{
    struct iqcar_sources local;   /* counts nobody asked for */
    if (!src) {
        memset(&local, 0, sizeof local);
        src = &local;
    }
    const struct clarity_stage *sa = &a->stages[clarity_icol_get(&a->tasks.stage, i)];
    memset(t, 0, sizeof *t);
    t->stage = stage;
    t->unit = unit;
    t->host = host;
    t->launch = clarity_task_launch_ms(a, i);
    t->finish = clarity_task_finish_ms(a, i);
    t->submit = sa->submit_ms > 0 && sa->submit_ms <= t->launch ? sa->submit_ms : t->launch;
    if (sa->submit_ms <= 0) src->no_submit++;
    t->ok = clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS;
    t->wait[IQ_S_SLOTS] = (double)(t->launch - t->submit);
    struct acc_vals x;
    accs_get(accs, acc, &x);
    task_waits(a, i, &x, o, t, src);
    /* without instrumentation, slots offered = 1 + launches on the task's host during its wait
     * window (the +1 is the slot it finally got, and avoids 0/0) */
    if (!(t->data[IQ_S_SLOTS] > 0)) t->data[IQ_S_SLOTS] = 1.0 + (double)offers;
    clarity_iqcar_task_ratps(t, src);
}

void clarity__iqcar_task_get(const struct iqcar_result *r, size_t i, struct iqcar_task *t)
{
    if (r->tasks) {
        *t = r->tasks[i];
        return;
    }
    const struct iqcar_tasktab *tab = r->tab;
    size_t lo = 0, hi = tab->napps;   /* the application: the last one whose first task is <= i */
    while (hi - lo > 1) {
        size_t m = lo + (hi - lo) / 2;
        if (tab->first[m] <= i) lo = m;
        else hi = m;
    }
    size_t k = lo;
    uint32_t st = tab->stage[i];
    clarity__iqcar_task_compute(tab->apps[k], tab->row[i], st, (uint32_t)r->stages[st].unit, tab->host[i], &tab->accs,
                                tab->acc[i], tab->offers[i], &r->opt, t, NULL);
}

void clarity_iqcar_task(const struct iqcar_result *r, size_t i, struct iqcar_task *out) { clarity__iqcar_task_get(r, i, out); }

void clarity__iqcar_tasktab_free(struct iqcar_tasktab *tab)
{
    if (!tab) return;
    free(tab->first);
    free(tab->row);
    free(tab->stage);
    free(tab->host);
    free(tab->offers);
    free(tab->acc);
    free(tab->accs.have);
    free(tab->accs.off);
    free(tab->accs.v);
    free(tab);
}
