/* clarity_diff_compare: both sides' figures (diff_run.c), matched by what the items are
 * (clarity_match_items, src/sim/match.c), the Spark properties that changed (diff_config.c), then what moved per item
 * and the causes of the whole change, ranked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/diff/diff_internal.h"

const char *clarity_diff_comp_name(int c)
{
    static const char *const n[] = {"cpu_ms", "gc_ms", "fetch_wait_ms", "shuffle_write_ms", "scheduler_delay_ms",
                                    "deserialize_ms", "other_ms"};
    return c >= 0 && c < CLARITY_DC_COUNT ? n[c] : "";
}
const char *clarity_diff_comp_label(int c)
{
    static const char *const n[] = {"CPU", "GC", "fetch wait", "shuffle write", "scheduler delay", "(de)serialize",
                                    "other run time"};
    return c >= 0 && c < CLARITY_DC_COUNT ? n[c] : "";
}
const char *clarity_diff_data_name(int d)
{
    static const char *const n[] = {"input_bytes", "input_records", "output_bytes", "output_records",
                                    "shuffle_read_bytes", "shuffle_read_records", "shuffle_write_bytes",
                                    "shuffle_write_records", "memory_spill_bytes", "disk_spill_bytes"};
    return d >= 0 && d < CLARITY_DD_COUNT ? n[d] : "";
}
const char *clarity_diff_data_label(int d)
{
    static const char *const n[] = {"input", "input records", "output", "output records", "shuffle read",
                                    "shuffle read records", "shuffle write", "shuffle write records",
                                    "memory spill", "disk spill"};
    return d >= 0 && d < CLARITY_DD_COUNT ? n[d] : "";
}
const char *clarity_diff_kind_name(int k)
{
    return k == CLARITY_DK_STAGE ? "stage" : k == CLARITY_DK_SQL ? "sql" : k == CLARITY_DK_JOB ? "job" : "";
}
const char *clarity_diff_cause_name(int k)
{
    static const char *const n[] = {"config", "executors", "input_size", "shuffle_size", "spill", "task_count",
                                    "slow_host", "component"};
    return k >= 0 && k < CLARITY_CAUSE_COUNT ? n[k] : "";
}

/* (b - a) / a in %, +inf-like 1e9 when a is 0 and b is not, 0 when both are 0 */
static double rel_pct(double a, double b)
{
    if (a == 0) return b == 0 ? 0 : 1e9;
    return 100.0 * (b - a) / a;
}

static void item_moves(struct clarity_diff_item *it, double noise)
{
    it->delta_ms = it->a.wall_ms >= 0 && it->b.wall_ms >= 0 && it->in_a && it->in_b ? it->b.wall_ms - it->a.wall_ms : 0;
    it->moved = -1;
    it->moved_ms = 0;
    /* the component that moved most in the direction of the wall-time change: when a stage
     * took longer, the component that grew explains it, not one that shrank; when none grew
     * (fewer slots: the same task time spread over less parallelism) there is none */
    for (int c = 0; c < CLARITY_DC_COUNT; c++) {
        double d = it->b.comp_ms[c] - it->a.comp_ms[c];
        if ((it->delta_ms > 0 && d <= 0) || (it->delta_ms < 0 && d >= 0)) continue;
        if (fabs(d) > fabs(it->moved_ms) + 1e-9) it->moved = c, it->moved_ms = d;
    }
    /* a change under the noise share of the item's task time explains nothing */
    if (it->moved >= 0 && fabs(it->moved_ms) < noise / 100 * (double)it->a.task_ms) it->moved = -1, it->moved_ms = 0;
    it->significant = it->delta_ms != 0 && it->a.wall_ms > 0 && fabs(rel_pct((double)it->a.wall_ms, (double)it->b.wall_ms)) >= noise;
    if (!it->significant && it->delta_ms != 0) it->moved = -1, it->moved_ms = 0;
    static const int bytes[] = {CLARITY_DD_INPUT_BYTES, CLARITY_DD_SR_BYTES, CLARITY_DD_SW_BYTES, CLARITY_DD_OUTPUT_BYTES,
                                CLARITY_DD_DISK_SPILL};
    double best = noise;
    it->data_moved = -1;
    for (size_t k = 0; k < sizeof bytes / sizeof *bytes; k++) {
        double r = fabs(rel_pct((double)it->a.data[bytes[k]], (double)it->b.data[bytes[k]]));
        if (r >= best && (it->a.data[bytes[k]] || it->b.data[bytes[k]])) best = r + 1e-12, it->data_moved = bytes[k];
    }
}

static int by_abs_delta(const void *p, const void *q)
{
    const struct clarity_diff_item *x = p, *y = q;
    int64_t dx = llabs(x->delta_ms), dy = llabs(y->delta_ms);
    if (dx != dy) return dx > dy ? -1 : 1;
    /* matched first, then by A's id, then B's: a stable order for equal changes */
    int64_t ax = x->in_a ? x->a_id : INT64_MAX, ay = y->in_a ? y->a_id : INT64_MAX;
    if (ax != ay) return ax < ay ? -1 : 1;
    int64_t bx = x->in_b ? x->b_id : INT64_MAX, by = y->in_b ? y->b_id : INT64_MAX;
    return (bx > by) - (bx < by);
}

/* One kind's matching, done for every kind before the items are allocated: the items array
 * then holds exactly the items (an item is a few hundred bytes, and 10^6 jobs make millions of
 * items), not the sum of both sides' counts. */
struct kind_match {
    long *a2b, *b2a;
    uint32_t *oa, *ob;
    size_t nitems;               /* items of this kind: A's, plus B's without a partner */
};

static int match_kind(const struct clarity_match_key *ka, size_t na, const struct clarity_match_key *kb, size_t nb, bool shape,
                      struct kind_match *m)
{
    m->a2b = malloc((na ? na : 1) * sizeof *m->a2b), m->b2a = malloc((nb ? nb : 1) * sizeof *m->b2a);
    m->oa = malloc((na ? na : 1) * sizeof *m->oa), m->ob = malloc((nb ? nb : 1) * sizeof *m->ob);
    int rc = m->a2b && m->b2a && m->oa && m->ob ? clarity_match_items(ka, na, kb, nb, shape, m->a2b, m->b2a, m->oa, m->ob)
                                                : CLARITY_ENOMEM;
    m->nitems = na;
    for (size_t j = 0; !rc && j < nb; j++) m->nitems += m->b2a[j] < 0;
    return rc;
}

static void kind_match_free(struct kind_match *m)
{
    free(m->a2b);
    free(m->b2a);
    free(m->oa);
    free(m->ob);
}

/* The items of one kind: matched, then only in A, then only in B, sorted by |change|. */
static int items(struct clarity_diff_result *r, int kind, const struct clarity_match_key *ka, const struct clarity_diff_side *sa,
                 size_t na, const struct clarity_match_key *kb, const struct clarity_diff_side *sb, size_t nb, bool shape,
                 const struct kind_match *m, size_t *count)
{
    const long *a2b = m->a2b, *b2a = m->b2a;
    const uint32_t *oa = m->oa, *ob = m->ob;
    int rc = 0;
    size_t first = r->nitems;
    for (size_t i = 0; !rc && i < na; i++) {
        struct clarity_diff_item *it = &r->items[r->nitems++];
        long j = a2b[i];
        const char *nm = ka[i].name ? ka[i].name : "";
        *it = (struct clarity_diff_item){.kind = kind, .ordinal = oa[i], .in_a = true, .a_id = ka[i].id, .b_id = -1,
                                           .a = sa[i]};
        it->b.wall_ms = -1;
        if (j >= 0) {
            it->in_b = true;
            it->b_id = kb[j].id;
            it->b = sb[j];
            it->plan_changed = shape && ka[i].shape != kb[j].shape;
        }
        if (!(it->name = clarity_arena_strdup(&r->arena, nm))) rc = CLARITY_ENOMEM;
    }
    for (size_t j = 0; !rc && j < nb; j++) {
        if (b2a[j] >= 0) continue;
        struct clarity_diff_item *it = &r->items[r->nitems++];
        const char *nm = kb[j].name ? kb[j].name : "";
        *it = (struct clarity_diff_item){.kind = kind, .ordinal = ob[j], .in_b = true, .a_id = -1, .b_id = kb[j].id,
                                           .b = sb[j]};
        it->a.wall_ms = -1;
        if (!(it->name = clarity_arena_strdup(&r->arena, nm))) rc = CLARITY_ENOMEM;
    }
    if (rc) return rc;
    for (size_t i = first; i < r->nitems; i++) item_moves(&r->items[i], r->noise_pct);
    qsort(r->items + first, r->nitems - first, sizeof *r->items, by_abs_delta);
    *count = r->nitems - first;
    return 0;
}

static int hosts(struct clarity_diff_result *r, const struct diff_run *ra, const struct diff_run *rb)
{
    r->hosts = clarity_arena_alloc(&r->arena, (ra->nhost + 1) * sizeof *r->hosts);
    if (!r->hosts) return CLARITY_ENOMEM;
    for (size_t i = 0, j = 0; i < ra->nhost && j < rb->nhost;) {
        const char *ha = ra->host[i].name, *hb = rb->host[j].name;
        int c = strcmp(ha, hb);
        if (c < 0) { i++; continue; }
        if (c > 0) { j++; continue; }
        const struct diff_host_acc *x = &ra->host[i++], *y = &rb->host[j++];
        struct clarity_diff_host *h = &r->hosts[r->nhosts++];
        h->host = clarity_arena_strdup(&r->arena, ha);
        if (!h->host) return CLARITY_ENOMEM;
        bool cpu = x->cpu_logged && y->cpu_logged && x->cpu_ms > 0 && y->cpu_ms > 0;
        h->a_rate = cpu ? x->run_ms / x->cpu_ms : x->tasks ? x->run_ms / (double)x->tasks : 0;
        h->b_rate = cpu ? y->run_ms / y->cpu_ms : y->tasks ? y->run_ms / (double)y->tasks : 0;
        h->a_tasks = x->tasks;
        h->b_tasks = y->tasks;
    }
    return 0;
}

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

/* A slow (or fast) host: of the hosts with at least HOST_MIN_TASKS tasks on both sides (and
 * at least three of them, so that "the others" exist), the one whose run time per CPU second
 * changed by a factor of at least HOST_FACTOR, and by that factor away from the median host's
 * factor (both: a host that moved 9% while the others moved -15% is not a slow host). A host that
 * shares its CPU with another process (a CPU hog) runs every task longer for the same CPU
 * time; more data or fewer executors change every host alike. */
#define HOST_MIN_TASKS 5
#define HOST_FACTOR 1.25
static int slow_host(struct clarity_diff_result *r)
{
    double *f = malloc((r->nhosts ? r->nhosts : 1) * sizeof *f);
    if (!f) return CLARITY_ENOMEM;
    size_t n = 0, best = SIZE_MAX;
    for (size_t i = 0; i < r->nhosts; i++) {
        const struct clarity_diff_host *h = &r->hosts[i];
        if (h->a_tasks < HOST_MIN_TASKS || h->b_tasks < HOST_MIN_TASKS || h->a_rate <= 0 || h->b_rate <= 0) continue;
        f[n++] = h->b_rate / h->a_rate;
    }
    if (n >= 3) {
        qsort(f, n, sizeof *f, cmp_double);
        double med = n % 2 ? f[n / 2] : (f[n / 2 - 1] + f[n / 2]) / 2, far = 0;
        for (size_t i = 0; i < r->nhosts; i++) {
            const struct clarity_diff_host *h = &r->hosts[i];
            if (h->a_tasks < HOST_MIN_TASKS || h->b_tasks < HOST_MIN_TASKS || h->a_rate <= 0 || h->b_rate <= 0) continue;
            double own = log(h->b_rate / h->a_rate), d = fabs(own - log(med));
            if (fabs(own) >= log(HOST_FACTOR) && d >= log(HOST_FACTOR) && d > far) far = d, best = i;
        }
        if (best != SIZE_MAX)
            r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_SLOW_HOST, .what = r->hosts[best].host,
                                                                  .a = r->hosts[best].a_rate, .b = r->hosts[best].b_rate};
    }
    free(f);
    return 0;
}

/* Causes, ranked from the most specific to the most general: a changed setting explains a
 * change by itself; fewer executors, more input, a slow host or another partitioning are
 * the next explanations; the task-time component that moved most says where the time went. */
static int causes(struct clarity_diff_result *r, const struct diff_run *ra, const struct diff_run *rb)
{
    r->causes = clarity_arena_alloc(&r->arena, (r->nconfig + CLARITY_CAUSE_COUNT + 1) * sizeof *r->causes);
    if (!r->causes) return CLARITY_ENOMEM;
    double noise = r->noise_pct;
    for (size_t i = 0; i < r->nconfig; i++)
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_CONFIG, .what = r->config[i].key};
    if (ra->execs != rb->execs || ra->cores != rb->cores)
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_EXECUTORS, .a = (double)ra->cores,
                                                              .b = (double)rb->cores};
    double ia = (double)r->a.data[CLARITY_DD_INPUT_BYTES], ib = (double)r->b.data[CLARITY_DD_INPUT_BYTES];
    double sa = (double)r->a.data[CLARITY_DD_SR_BYTES], sb = (double)r->b.data[CLARITY_DD_SR_BYTES];
    if (fabs(rel_pct(ia, ib)) >= noise)
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_INPUT_SIZE, .a = ia, .b = ib};
    else if (fabs(rel_pct(sa, sb)) >= noise)
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_SHUFFLE_SIZE, .a = sa, .b = sb};
    /* spill: too little execution memory for the data, from a setting or from more data */
    double da = (double)r->a.data[CLARITY_DD_DISK_SPILL], db = (double)r->b.data[CLARITY_DD_DISK_SPILL];
    if (fabs(rel_pct(da, db)) >= noise)
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_SPILL, .a = da, .b = db};
    if (slow_host(r)) return CLARITY_ENOMEM;
    if (fabs(rel_pct((double)r->a.tasks, (double)r->b.tasks)) >= noise)
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_TASK_COUNT, .a = (double)r->a.tasks,
                                                              .b = (double)r->b.tasks};
    int top = -1;
    double dtop = 0;
    for (int c = 0; c < CLARITY_DC_COUNT; c++) {
        double d = r->b.comp_ms[c] - r->a.comp_ms[c];
        if (fabs(d) > fabs(dtop)) top = c, dtop = d;
    }
    if (top >= 0 && fabs(dtop) >= noise / 100 * (double)(r->a.task_ms > 0 ? r->a.task_ms : 1))
        r->causes[r->ncauses++] = (struct clarity_diff_cause){.kind = CLARITY_CAUSE_COMPONENT, .what = clarity_diff_comp_name(top),
                                                              .a = r->a.comp_ms[top], .b = r->b.comp_ms[top]};
    return 0;
}

static int ident_copy(struct clarity_arena *arena, const struct clarity_diff_ident *s, struct clarity_diff_ident *d)
{
    *d = (struct clarity_diff_ident){.app_id = clarity_arena_strdup(arena, s->app_id),
                                     .name = clarity_arena_strdup(arena, s->name),
                                     .attempt_id = clarity_arena_strdup(arena, s->attempt_id),
                                     .source = clarity_arena_strdup(arena, s->source), .start_ms = s->start_ms};
    return d->app_id && d->name && (d->attempt_id || !s->attempt_id) && (d->source || !s->source) ? 0 : CLARITY_ENOMEM;
}

int clarity_diff_app_build(const struct clarity_app *a, const struct clarity_diff_options *opt, struct clarity_diff_app **out,
                           struct clarity_error *err)
{
    *out = NULL;
    struct clarity_diff_app *s = calloc(1, sizeof *s);
    if (!s) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing two applications");
    struct diff_strs t = {.a = a, .arena = &s->arena};
    struct clarity_diff_ident id = {.app_id = clarity_app_str(a, a->app_id), .name = clarity_app_str(a, a->name),
                                    .attempt_id = a->attempt_id ? clarity_app_str(a, a->attempt_id) : NULL,
                                    .source = a->source_path, .start_ms = a->start_ms};
    /* the findings first: their working set is the largest, and the side's arrays do not
     * exist yet while it does */
    int rc = opt && opt->no_findings ? 0 : clarity__diff_findings_run(a, opt ? opt->threads : 0, s, err);
    if (!rc) {
        rc = ident_copy(&s->arena, &id, &s->id);
        if (!rc) rc = clarity__diff_run_build(a, &t, &s->run);
        if (!rc) rc = clarity__diff_props(a, &t, s);
        if (rc) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing two applications");
    }
    clarity_idmap_free(&t.ix);
    free(t.s);
    if (rc) {
        clarity_diff_app_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

const struct clarity_diff_ident *clarity_diff_app_ident(const struct clarity_diff_app *s)
{
    return &s->id;
}

void clarity_diff_app_free(struct clarity_diff_app *s)
{
    if (!s) return;
    clarity__diff_run_free(&s->run);
    clarity_arena_free(&s->arena);
    free(s);
}

int clarity_diff_compare(const struct clarity_diff_app *sa, const struct clarity_diff_app *sb, const struct clarity_diff_options *opt,
                         struct clarity_diff_result *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->noise_pct = opt && opt->noise_pct > 0 ? opt->noise_pct : 5.0;
    out->top_stage = SIZE_MAX;
    const struct diff_run *ra = &sa->run, *rb = &sb->run;
    int rc = ident_copy(&out->arena, &sa->id, &out->a_app);
    if (!rc) rc = ident_copy(&out->arena, &sb->id, &out->b_app);
    if (!rc) rc = clarity__diff_config(sa, sb, out);
    if (!rc) {
        out->a = ra->app;
        out->b = rb->app;
        out->a_execs = ra->execs, out->b_execs = rb->execs, out->a_cores = ra->cores, out->b_cores = rb->cores;
        out->a_hosts = ra->hosts, out->b_hosts = rb->hosts;
        out->change_pct = out->a.wall_ms > 0 && out->b.wall_ms >= 0 ? rel_pct((double)out->a.wall_ms, (double)out->b.wall_ms) : 0;
    }
    struct kind_match m[3] = {0};
    if (!rc) rc = match_kind(ra->st_key, ra->nst, rb->st_key, rb->nst, false, &m[0]);
    if (!rc) rc = match_kind(ra->sql_key, ra->nsql, rb->sql_key, rb->nsql, true, &m[1]);
    if (!rc) rc = match_kind(ra->job_key, ra->njob, rb->job_key, rb->njob, false, &m[2]);
    if (!rc) {
        out->items = clarity_arena_alloc(&out->arena, (m[0].nitems + m[1].nitems + m[2].nitems + 1) * sizeof *out->items);
        rc = out->items ? 0 : CLARITY_ENOMEM;
    }
    if (!rc) rc = items(out, CLARITY_DK_STAGE, ra->st_key, ra->st, ra->nst, rb->st_key, rb->st, rb->nst, false, &m[0], &out->nstages);
    if (!rc) rc = items(out, CLARITY_DK_SQL, ra->sql_key, ra->sql, ra->nsql, rb->sql_key, rb->sql, rb->nsql, true, &m[1], &out->nsqls);
    if (!rc) rc = items(out, CLARITY_DK_JOB, ra->job_key, ra->job, ra->njob, rb->job_key, rb->job, rb->njob, false, &m[2], &out->njobs);
    for (int k = 0; k < 3; k++) kind_match_free(&m[k]);
    if (!rc) rc = hosts(out, ra, rb);
    if (!rc && sa->findings_run && sb->findings_run) {
        rc = clarity__diff_findings(sa, sb, out, err);
        if (rc) {
            clarity_diff_free(out);
            return rc;
        }
        out->findings_compared = true;
    }
    if (!rc) rc = causes(out, ra, rb);
    if (rc) {
        clarity_diff_free(out);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing two applications");
    }
    /* the stage that moved most in the direction of the whole change */
    int64_t best = 0;
    for (size_t i = 0; i < out->nstages; i++) {
        int64_t d = out->items[i].delta_ms;
        if ((out->change_pct >= 0 ? d > best : d < best)) best = d, out->top_stage = i;
    }
    out->no_change = fabs(out->change_pct) < out->noise_pct && out->ncauses == 0;
    return 0;
}

int clarity_diff_analyze(const struct clarity_app *a, const struct clarity_app *b, const struct clarity_diff_options *opt,
                         struct clarity_diff_result *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    struct clarity_diff_app *sa = NULL, *sb = NULL;
    int rc = clarity_diff_app_build(a, opt, &sa, err);
    if (!rc) rc = clarity_diff_app_build(b, opt, &sb, err);
    if (!rc) rc = clarity_diff_compare(sa, sb, opt, out, err);
    clarity_diff_app_free(sa);
    clarity_diff_app_free(sb);
    return rc;
}

void clarity_diff_free(struct clarity_diff_result *r)
{
    clarity_arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}
