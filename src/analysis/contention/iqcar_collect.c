/* From models to iQCAR's units of analysis (a query is its SQL execution, else its job group,
 * else its job; or one per application), stages merged over attempts, hosts matched by name
 * across applications, and the compact task table (iqcar_internal.h): every task attempt with
 * metrics is a source. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"
#include "util/stats.h"

static char *xstrdup(const char *s) { return strdup(s ? s : ""); }

/* Strings to their index in order of first sight (unit keys, hosts), by hash. */
struct names { struct clarity_strtab st; struct clarity_idmap index; size_t n; };

/* s's index, adding it as index n when new (*added set); -1 when out of memory. */
static long names_find_add(struct names *t, const char *s, bool *added)
{
    uint32_t id = clarity_strtab_intern(&t->st, s, strlen(s)), v;
    *added = false;
    if (id == UINT32_MAX) return -1;
    if (clarity_idmap_get(&t->index, id, &v)) return v;
    if (clarity_idmap_put(&t->index, id, (uint32_t)t->n)) return -1;
    *added = true;
    return (long)t->n++;
}

static void names_free(struct names *t)
{
    clarity_strtab_free(&t->st);
    clarity_idmap_free(&t->index);
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

static bool any_sql(const struct clarity_app *const *apps, size_t napps)
{
    for (size_t k = 0; k < napps; k++)
        for (size_t j = 0; j < apps[k]->njobs; j++)
            if (apps[k]->jobs[j].sql_id >= 0) return true;
    return false;
}

struct collect {
    struct names keys, hosts;
    size_t cap_units, cap_stages, cap_hosts;
};

/* A new unit (index r->nunits) named after the job's key. */
static int unit_add(struct iqcar_result *r, struct collect *cs, const struct clarity_app *a, size_t ai, const char *name)
{
    if (r->nunits == cs->cap_units) {
        size_t c = cs->cap_units ? cs->cap_units * 2 : 16;
        void *p = realloc(r->units, c * sizeof *r->units);
        if (!p) return -1;
        r->units = p, cs->cap_units = c;
    }
    char full[300];
    if (r->napps > 1 && r->unit_kind != IQ_UNIT_APP) snprintf(full, sizeof full, "%s:%s", clarity_app_str(a, a->app_id), name);
    else snprintf(full, sizeof full, "%s", name);
    r->units[r->nunits++] = (struct iqcar_unit_info){.name = xstrdup(full), .start = INT64_MAX, .end = INT64_MIN, .app = ai};
    return 0;
}

/* The global stage of a stage attempt row, adding it (and its unit) when new; -1 when out of
 * memory. */
static long stage_of(struct iqcar_result *r, struct collect *cs, const struct clarity_app *a, size_t ai,
                     struct clarity_idmap *stage_map, const struct clarity_stage *sa)
{
    uint32_t gs;
    if (clarity_idmap_get(stage_map, sa->stage_id, &gs)) return gs;
    const struct clarity_job *j = NULL;
    for (size_t k = 0; k < sa->njob_ids && !j; k++) j = clarity_app_job(a, sa->job_ids[k]);
    char kk[300], key[320], name[256];
    if (j) job_unit_key(a, j, r->unit_kind, kk, sizeof kk, name, sizeof name);
    else snprintf(kk, sizeof kk, "nojob"), snprintf(name, sizeof name, "no job");
    snprintf(key, sizeof key, "%zx|%s", ai, kk);   /* units never span applications */
    bool added;
    long u = names_find_add(&cs->keys, key, &added);
    if (u < 0 || (added && unit_add(r, cs, a, ai, name))) return -1;
    if (r->nstages == cs->cap_stages) {
        size_t c = cs->cap_stages ? cs->cap_stages * 2 : 64;
        void *p = realloc(r->stages, c * sizeof *r->stages);
        if (!p) return -1;
        r->stages = p, cs->cap_stages = c;
    }
    char sn[64];
    snprintf(sn, sizeof sn, "stage %lld", (long long)sa->stage_id);
    r->stages[r->nstages] = (struct iqcar_stage_info){.app = ai, .unit = (size_t)u, .stage_id = sa->stage_id, .name = xstrdup(sn)};
    gs = (uint32_t)r->nstages++;
    return clarity_idmap_put(stage_map, sa->stage_id, gs) ? -1 : (long)gs;
}

/* The host index of a host string id of a, adding the name when new; -1 when out of memory. */
static long host_of(struct iqcar_result *r, struct collect *cs, const struct clarity_app *a, struct clarity_idmap *host_map,
                    uint32_t hid)
{
    uint32_t hv;
    if (clarity_idmap_get(host_map, hid, &hv)) return hv;
    bool added;
    long h = names_find_add(&cs->hosts, clarity_app_str(a, hid), &added);
    if (h < 0) return -1;
    if (added) {
        if (r->nhosts == cs->cap_hosts) {
            size_t c = cs->cap_hosts ? cs->cap_hosts * 2 : 16;
            char **t = realloc(r->hosts, c * sizeof *t);
            if (!t) return -1;
            r->hosts = t, cs->cap_hosts = c;
        }
        if (!(r->hosts[r->nhosts] = xstrdup(clarity_app_str(a, hid)))) return -1;
        r->nhosts++;
    }
    return clarity_idmap_put(host_map, hid, (uint32_t)h) ? -1 : h;
}

/* One application's units, stages and tasks appended to r. */
static int collect_app(const struct clarity_app *a, size_t ai, struct iqcar_result *r, struct collect *cs)
{
    struct iqcar_tasktab *tab = r->tab;
    struct clarity_idmap stage_map = {0}, host_map = {0};   /* the app's stage id / host string id -> index */
    uint32_t *row_acc = malloc((a->tasks.n ? a->tasks.n : 1) * sizeof *row_acc);
    int rc = -1;
    if (!row_acc || clarity__iqcar_accs_read(a, &r->opt, &tab->accs, row_acc, &r->src)) goto out;
    for (size_t i = 0; i < a->tasks.n; i++) {
        int64_t fl = clarity_task_flags(a, i);
        if (!(fl & CLARITY_TF_ENDED) || !(fl & CLARITY_TF_HAS_METRICS)) continue;
        long gs = stage_of(r, cs, a, ai, &stage_map, &a->stages[clarity_icol_get(&a->tasks.stage, i)]);
        long h = gs < 0 ? -1 : host_of(r, cs, a, &host_map, (uint32_t)clarity_icol_get(&a->tasks.host, i));
        if (h < 0) goto out;
        size_t k = r->ntasks++;
        tab->row[k] = (uint32_t)i;
        tab->stage[k] = (uint32_t)gs;
        tab->host[k] = (uint32_t)h;
        tab->acc[k] = row_acc[i];
        tab->offers[k] = 0;
        /* the figures' sources are counted here, once per task; slots offered is >= 1 whether
         * instrumented or the proxy (filled in below), so the proxy's value changes no count */
        struct iqcar_task t;
        clarity__iqcar_task_compute(a, i, (uint32_t)gs, (uint32_t)r->stages[gs].unit, (uint32_t)h, &tab->accs, row_acc[i], 0,
                                    &r->opt, &t, &r->src);
        struct iqcar_unit_info *u = &r->units[t.unit];
        if (t.submit < u->start) u->start = t.submit;
        if (t.finish > u->end) u->end = t.finish;
        u->tasks++;
        u->task_ms += (double)t.finish - (double)t.launch;   /* in double: times at the int64 extremes */
        struct iqcar_stage_info *s = &r->stages[gs];
        double rt = (double)(t.finish - t.submit);
        if (rt > s->runtime) s->runtime = rt;
    }
    rc = 0;
out:
    clarity_idmap_free(&stage_map);
    clarity_idmap_free(&host_map);
    free(row_acc);
    return rc;
}

/* The slots-offered proxy's count: launches on the task's host in [submit, launch), by binary
 * search in the host's sorted launch times. */
static int count_offers(struct iqcar_result *r)
{
    struct iqcar_tasktab *tab = r->tab;
    size_t n = r->ntasks;
    size_t *cnt = calloc(r->nhosts + 1, sizeof *cnt), *pos = malloc((r->nhosts + 1) * sizeof *pos);
    int64_t *l = malloc((n ? n : 1) * sizeof *l);
    int rc = -1;
    if (!cnt || !pos || !l) goto out;
    for (size_t i = 0; i < n; i++) cnt[tab->host[i] + 1]++;
    for (size_t h = 0; h < r->nhosts; h++) cnt[h + 1] += cnt[h];
    memcpy(pos, cnt, (r->nhosts + 1) * sizeof *pos);
    for (size_t k = 0; k < tab->napps; k++)
        for (size_t i = tab->first[k]; i < tab->first[k + 1]; i++)
            l[pos[tab->host[i]]++] = clarity_task_launch_ms(tab->apps[k], tab->row[i]);
    for (size_t h = 0; h < r->nhosts; h++) qsort(l + cnt[h], cnt[h + 1] - cnt[h], sizeof *l, clarity_cmp_i64);
    for (size_t k = 0; k < tab->napps; k++) {
        const struct clarity_app *a = tab->apps[k];
        for (size_t i = tab->first[k]; i < tab->first[k + 1]; i++) {
            size_t row = tab->row[i];
            const struct clarity_stage *sa = &a->stages[clarity_icol_get(&a->tasks.stage, row)];
            int64_t launch = clarity_task_launch_ms(a, row);
            int64_t submit = sa->submit_ms > 0 && sa->submit_ms <= launch ? sa->submit_ms : launch;
            const int64_t *b = l + cnt[tab->host[i]], *e = l + cnt[tab->host[i] + 1];
            const int64_t *lo = b, *hi = e;
            while (lo < hi) { const int64_t *m = lo + (hi - lo) / 2; if (*m < submit) lo = m + 1; else hi = m; }
            const int64_t *a0 = lo;
            lo = a0; hi = e;
            while (lo < hi) { const int64_t *m = lo + (hi - lo) / 2; if (*m < launch) lo = m + 1; else hi = m; }
            tab->offers[i] = (size_t)(lo - a0) > UINT32_MAX ? UINT32_MAX : (uint32_t)(lo - a0);
        }
    }
    rc = 0;
out:
    free(cnt);
    free(pos);
    free(l);
    return rc;
}

int clarity_iqcar_collect(const struct clarity_app *const *apps, size_t napps, struct iqcar_result *r,
                  struct clarity_error *err)
{
    size_t n = 0;
    struct collect cs = {0};
    int rc = -1;
    for (size_t k = 0; k < napps; k++) n += apps[k]->tasks.n;
    r->unit_kind = r->opt.unit == IQ_UNIT_AUTO ? (any_sql(apps, napps) ? IQ_UNIT_SQL : IQ_UNIT_JOB) : r->opt.unit;
    r->napps = napps;
    r->apps = calloc(napps ? napps : 1, sizeof *r->apps);
    struct iqcar_tasktab *tab = r->tab = calloc(1, sizeof *r->tab);
    if (!r->apps || !tab) goto out;
    tab->apps = apps;
    tab->napps = napps;
    tab->first = malloc((napps + 1) * sizeof *tab->first);
    tab->row = malloc((n ? n : 1) * sizeof *tab->row);
    tab->stage = malloc((n ? n : 1) * sizeof *tab->stage);
    tab->host = malloc((n ? n : 1) * sizeof *tab->host);
    tab->offers = malloc((n ? n : 1) * sizeof *tab->offers);
    tab->acc = malloc((n ? n : 1) * sizeof *tab->acc);
    if (!tab->first || !tab->row || !tab->stage || !tab->host || !tab->offers || !tab->acc || n >= IQ_NONE) goto out;
    for (size_t k = 0; k < napps; k++) {
        if (!(r->apps[k] = xstrdup(clarity_app_str(apps[k], apps[k]->app_id)))) goto out;
        tab->first[k] = r->ntasks;
        if (collect_app(apps[k], k, r, &cs)) goto out;
    }
    tab->first[napps] = r->ntasks;
    if (r->nunits > IQ_MAX_TARGETS) {   /* a graph node holds its target in 27 bits */
        names_free(&cs.keys);
        names_free(&cs.hosts);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "too many %s units for the iQC-Graph: %zu (at most %zu)",
                                 clarity_iqcar_unit_name(r->unit_kind), r->nunits, IQ_MAX_TARGETS);
    }
    r->src.tasks = r->ntasks;
    r->src.apps = napps;
    if (count_offers(r)) goto out;
    if (r->opt.critical_path) {
        int crc = clarity_iqcar_mark_critical(apps, r, err);
        if (crc) { rc = crc; goto out; }
    }
    rc = 0;
out:
    names_free(&cs.keys);
    names_free(&cs.hosts);
    /* -1: an allocation above failed (iqcar_mark_critical fills err itself) */
    if (rc < 0) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory collecting tasks");
    return rc;
}
