/* From models to iQCAR's task table: units of analysis (a query is its SQL execution, else its
 * job group, else its job; or one per application), stages merged over attempts, every task
 * attempt with metrics a source, hosts matched by name across applications, and per task the
 * wait time and data processed of each resource sub-type (Table 4) from the log, its
 * instrumented accumulables, or the labelled standard-log proxies (slots offered, CPU wait). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"
#include "util/stats.h"

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
    static const char *const names[IQ_NACC] = {
        "iqcar.cpu.blockedTime", "iqcar.cpu.waitedTime", "iqcar.mem.storageWaitTime", "iqcar.mem.storageAsked",
        "iqcar.mem.executionWaitTime", "iqcar.mem.executionAsked", "iqcar.sched.slotsOffered"};
    for (int i = 0; i < IQ_NACC; i++) o->acc_names[i] = names[i];
}

static char *xstrdup(const char *s) { return strdup(s ? s : ""); }

/* Find or add a string in a small table (hosts, unit keys); -1 when out of memory. */
static long table_find_add(char ***tab, size_t *n, size_t *cap, const char *s)
{
    for (size_t i = *n; i-- > 0;)   /* newest first: consecutive rows usually repeat */
        if (!strcmp((*tab)[i], s)) return (long)i;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        char **t = realloc(*tab, c * sizeof *t);
        if (!t) return -1;
        *tab = t;
        *cap = c;
    }
    if (!((*tab)[*n] = xstrdup(s))) return -1;
    return (long)(*n)++;
}

/* The unit key of a job: "<kind>:<id>" so that different kinds never collide. */
static void job_unit_key(const struct clarity_app *a, const struct clarity_job *j, int unit, char *key, size_t cap,
                         char *name, size_t ncap)
{
    const char *grp = clarity_app_str(a, j->group), *pool = clarity_app_str(a, j->pool);
    if (unit == IQ_UNIT_APP) {
        snprintf(key, cap, "app");
        snprintf(name, ncap, "%s", clarity_app_str(a, a->app_id));
    } else if (unit == IQ_UNIT_POOL) {
        snprintf(key, cap, "pool:%s", *pool ? pool : "default");
        snprintf(name, ncap, "pool %s", *pool ? pool : "default");
    } else if ((unit == IQ_UNIT_SQL || unit == IQ_UNIT_AUTO) && j->sql_id >= 0) {
        const struct clarity_sql *q = clarity_app_sql(a, j->sql_id);
        const char *d = q ? clarity_app_str(a, q->description) : "";
        snprintf(key, cap, "sql:%lld", (long long)j->sql_id);
        if (*d) snprintf(name, ncap, "%s", d);
        else snprintf(name, ncap, "sql %lld", (long long)j->sql_id);
    } else if (unit != IQ_UNIT_JOB && *grp) {
        snprintf(key, cap, "group:%s", grp);
        snprintf(name, ncap, "group %s", grp);
    } else {
        snprintf(key, cap, "job:%lld", (long long)j->job_id);
        snprintf(name, ncap, "job %lld", (long long)j->job_id);
    }
}

enum { X_SCAN = IQ_NACC, X_N };
struct acc_vals { double v[X_N]; uint16_t have; };

/* The sidecar CSV's values replace the accumulables of the metrics it gives for a task
 * (measured outside the log, so it is the better source when both exist). */
static void sidecar_values(const struct clarity_app *a, const struct iqcar_sidecar *sc, struct acc_vals *t, size_t *n)
{
    const char *app_id = clarity_app_str(a, a->app_id);
    for (size_t i = 0; i < a->tasks.n; i++) {
        size_t f, m = clarity_iqcar_sidecar_find(sc, clarity_icol_get(&a->tasks.task_id, i),
                                         (int32_t)clarity_icol_get(&a->tasks.attempt, i), &f);
        uint16_t seen = 0;
        for (size_t k = f; k < f + m; k++) {
            const struct iqcar_sidecar_row *row = &sc->rows[k];
            if (!clarity_iqcar_sidecar_row_for(sc, row, app_id)) continue;
            uint16_t bit = (uint16_t)(1u << row->metric);
            if (!(seen & bit)) t[i].v[row->metric] = 0;
            seen |= bit;
            t[i].v[row->metric] += row->value;
        }
        t[i].have |= seen;
        if (seen) (*n)++;
    }
}

/* Per task row: the instrumented accumulables and the SQL scan time, by name. */
static struct acc_vals *read_accums(const struct clarity_app *a, const struct iqcar_options *o, size_t *n_sidecar)
{
    struct acc_vals *t = calloc(a->tasks.n ? a->tasks.n : 1, sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < a->task_accums.n; i++) {
        const struct clarity_accum *x = &a->task_accums.p[i];
        if (!x->has_update || x->owner >= a->tasks.n) continue;
        const char *nm = clarity_app_str(a, x->name);
        int k = -1;
        if (!strcmp(nm, "scan time") || !strcmp(nm, "scan time total (min, med, max)")) k = X_SCAN;
        else
            for (int j = 0; j < IQ_NACC && k < 0; j++)
                if (o->acc_names[j] && !strcmp(nm, o->acc_names[j])) k = j;
        if (k < 0) continue;
        t[x->owner].v[k] += (double)x->update;
        t[x->owner].have |= (uint16_t)(1u << k);
    }
    if (o->sidecar) sidecar_values(a, o->sidecar, t, n_sidecar);
    return t;
}

static double dmax0(double x) { return x > 0 ? x : 0; }

/* Wait and data of every sub-type for one task row; slots_offered is filled in later. */
static void task_waits(const struct clarity_app *a, size_t i, const struct acc_vals *x, const struct iqcar_options *o,
                       struct iqcar_task *t, struct iqcar_sources *src)
{
#define M(m) ((double)clarity_task_metric(a, i, CLARITY_TM_##m))
    double run = M(RUN_MS), cpu_ms = M(CPU_NS) / 1e6, fetch = M(SR_FETCH_WAIT_MS), sw_ms = M(SW_TIME_NS) / 1e6;
    double gc = M(GC_MS), scan = (x->have & (1u << X_SCAN)) ? x->v[X_SCAN] : 0;
    double input = M(INPUT_BYTES) + M(SR_REMOTE_BYTES) + M(SR_LOCAL_BYTES);
    if (x->have & (1u << X_SCAN)) src->scan_time++;
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

/* Proxy without instrumentation: slots_offered = 1 + launches on the task's host during its
 * wait window (the +1 is the slot it finally got, and avoids 0/0). */
static int slots_offered_proxy(struct iqcar_result *r)
{
    size_t *cnt = calloc(r->nhosts + 1, sizeof *cnt);
    int64_t *l = malloc((r->ntasks ? r->ntasks : 1) * sizeof *l);
    if (!cnt || !l) {
        free(cnt);
        free(l);
        return -1;
    }
    for (size_t i = 0; i < r->ntasks; i++) cnt[r->tasks[i].host + 1]++;
    for (size_t h = 0; h < r->nhosts; h++) cnt[h + 1] += cnt[h];
    size_t *pos = malloc((r->nhosts + 1) * sizeof *pos);
    if (!pos) {
        free(cnt);
        free(l);
        return -1;
    }
    memcpy(pos, cnt, (r->nhosts + 1) * sizeof *pos);
    for (size_t i = 0; i < r->ntasks; i++) l[pos[r->tasks[i].host]++] = r->tasks[i].launch;
    for (size_t h = 0; h < r->nhosts; h++) qsort(l + cnt[h], cnt[h + 1] - cnt[h], sizeof *l, clarity_cmp_i64);
    for (size_t i = 0; i < r->ntasks; i++) {
        struct iqcar_task *t = &r->tasks[i];
        if (t->data[IQ_S_SLOTS] > 0) continue;   /* instrumented */
        const int64_t *b = l + cnt[t->host], *e = l + cnt[t->host + 1];
        /* launches in [submit, launch): lower bounds by binary search */
        const int64_t *lo = b, *hi = e;
        while (lo < hi) { const int64_t *m = lo + (hi - lo) / 2; if (*m < t->submit) lo = m + 1; else hi = m; }
        const int64_t *a0 = lo;
        lo = a0; hi = e;
        while (lo < hi) { const int64_t *m = lo + (hi - lo) / 2; if (*m < t->launch) lo = m + 1; else hi = m; }
        t->data[IQ_S_SLOTS] = 1.0 + (double)(lo - a0);
    }
    free(pos);
    free(cnt);
    free(l);
    return 0;
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

static bool any_sql(const struct clarity_app *const *apps, size_t napps)
{
    for (size_t k = 0; k < napps; k++)
        for (size_t j = 0; j < apps[k]->njobs; j++)
            if (apps[k]->jobs[j].sql_id >= 0) return true;
    return false;
}

/* One application's units, stages and tasks appended to r. */
static int collect_app(const struct clarity_app *a, size_t ai, struct iqcar_result *r, char ***keys, size_t *nkeys,
                       size_t *capkeys, size_t *cap_units, size_t *cap_stages, size_t *cap_hosts)
{
    struct clarity_idmap stage_map = {0};
    struct acc_vals *acc = read_accums(a, &r->opt, &r->src.sidecar_tasks);
    int rc = -1;
    if (!acc) return -1;
    char key[320], name[256];
    struct clarity_idmap host_map = {0};   /* the app's host string id -> host index */
    for (size_t i = 0; i < a->tasks.n; i++) {
        int64_t fl = clarity_task_flags(a, i);
        if (!(fl & CLARITY_TF_ENDED) || !(fl & CLARITY_TF_HAS_METRICS)) continue;
        const struct clarity_stage *sa = &a->stages[clarity_icol_get(&a->tasks.stage, i)];
        uint32_t gs;
        if (!clarity_idmap_get(&stage_map, sa->stage_id, &gs)) {
            const struct clarity_job *j = NULL;
            for (size_t k = 0; k < sa->njob_ids && !j; k++) j = clarity_app_job(a, sa->job_ids[k]);
            char kk[300];
            if (j) job_unit_key(a, j, r->unit_kind, kk, sizeof kk, name, sizeof name);
            else snprintf(kk, sizeof kk, "nojob"), snprintf(name, sizeof name, "no job");
            snprintf(key, sizeof key, "%zx|%s", ai, kk);   /* units never span applications */
            long u = table_find_add(keys, nkeys, capkeys, key);
            if (u < 0) goto out;
            if ((size_t)u == r->nunits) {
                if (r->nunits == *cap_units) {
                    size_t c = *cap_units ? *cap_units * 2 : 16;
                    void *p = realloc(r->units, c * sizeof *r->units);
                    if (!p) goto out;
                    r->units = p, *cap_units = c;
                }
                char full[300];
                if (r->napps > 1 && r->unit_kind != IQ_UNIT_APP)
                    snprintf(full, sizeof full, "%s:%s", clarity_app_str(a, a->app_id), name);
                else snprintf(full, sizeof full, "%s", name);
                r->units[r->nunits++] = (struct iqcar_unit_info){.name = xstrdup(full), .start = INT64_MAX,
                                                                 .end = INT64_MIN, .app = ai};
            }
            if (r->nstages == *cap_stages) {
                size_t c = *cap_stages ? *cap_stages * 2 : 64;
                void *p = realloc(r->stages, c * sizeof *r->stages);
                if (!p) goto out;
                r->stages = p, *cap_stages = c;
            }
            char sn[64];
            snprintf(sn, sizeof sn, "stage %lld", (long long)sa->stage_id);
            r->stages[r->nstages] = (struct iqcar_stage_info){.app = ai, .unit = (size_t)u,
                                                              .stage_id = sa->stage_id, .name = xstrdup(sn)};
            gs = (uint32_t)r->nstages++;
            if (clarity_idmap_put(&stage_map, sa->stage_id, gs)) goto out;
        }
        uint32_t hid = (uint32_t)clarity_icol_get(&a->tasks.host, i), hv;
        long h;
        if (clarity_idmap_get(&host_map, hid, &hv)) h = hv;
        else if ((h = table_find_add(&r->hosts, &r->nhosts, cap_hosts, clarity_app_str(a, hid))) < 0 ||
                 clarity_idmap_put(&host_map, hid, (uint32_t)h))
            goto out;
        if (h < 0) goto out;
        struct iqcar_task *t = &r->tasks[r->ntasks++];
        memset(t, 0, sizeof *t);
        t->stage = gs;
        t->unit = (uint32_t)r->stages[gs].unit;
        t->host = (uint32_t)h;
        t->launch = clarity_task_launch_ms(a, i);
        t->finish = clarity_task_finish_ms(a, i);
        t->submit = sa->submit_ms > 0 && sa->submit_ms <= t->launch ? sa->submit_ms : t->launch;
        if (sa->submit_ms <= 0) r->src.no_submit++;
        t->ok = clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS;
        t->wait[IQ_S_SLOTS] = (double)(t->launch - t->submit);
        task_waits(a, i, &acc[i], &r->opt, t, &r->src);
        struct iqcar_unit_info *u = &r->units[t->unit];
        if (t->submit < u->start) u->start = t->submit;
        if (t->finish > u->end) u->end = t->finish;
        u->tasks++;
        struct iqcar_stage_info *s = &r->stages[gs];
        double rt = (double)(t->finish - t->submit);
        if (rt > s->runtime) s->runtime = rt;
    }
    rc = 0;
out:
    clarity_idmap_free(&stage_map);
    clarity_idmap_free(&host_map);
    free(acc);
    return rc;
}

int clarity_iqcar_collect(const struct clarity_app *const *apps, size_t napps, struct iqcar_result *r,
                  struct clarity_error *err)
{
    size_t n = 0, cap_units = 0, cap_stages = 0, cap_hosts = 0, nkeys = 0, capkeys = 0;
    char **keys = NULL;
    int rc = -1;
    for (size_t k = 0; k < napps; k++) n += apps[k]->tasks.n;
    r->unit_kind = r->opt.unit == IQ_UNIT_AUTO ? (any_sql(apps, napps) ? IQ_UNIT_SQL : IQ_UNIT_JOB) : r->opt.unit;
    r->napps = napps;
    r->apps = calloc(napps ? napps : 1, sizeof *r->apps);
    r->tasks = malloc((n ? n : 1) * sizeof *r->tasks);
    if (!r->apps || !r->tasks) goto out;
    for (size_t k = 0; k < napps; k++) {
        if (!(r->apps[k] = xstrdup(clarity_app_str(apps[k], apps[k]->app_id)))) goto out;
        if (collect_app(apps[k], k, r, &keys, &nkeys, &capkeys, &cap_units, &cap_stages, &cap_hosts)) goto out;
    }
    r->src.tasks = r->ntasks;
    r->src.apps = napps;
    if (slots_offered_proxy(r)) goto out;
    if (r->opt.critical_path) {
        int crc = clarity_iqcar_mark_critical(apps, r, err);
        if (crc) { rc = crc; goto out; }
    }
    for (size_t i = 0; i < r->ntasks; i++) clarity_iqcar_task_ratps(&r->tasks[i], &r->src);
    rc = 0;
out:
    for (size_t i = 0; i < nkeys; i++) free(keys[i]);
    free(keys);
    /* -1: an allocation above failed (iqcar_mark_critical fills err itself) */
    if (rc < 0) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory collecting tasks");
    return rc;
}
