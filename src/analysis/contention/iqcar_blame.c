/* Blame from overlapping tasks, host by host (tasks on the same host string, executors
 * merged): run windows [launch, finish) against runs for CPU, memory, network and IO, wait
 * windows [submission, launch) against runs for slots; then Unknown, what the host's capacity
 * says a task lost beyond the blames.
 *
 * The pairs are those of clarity_iqcar_interval_join (iqcar_sweep.c), met in the very same
 * order: its sweep is repeated here with the per-pair work inline, because a 10 M-task log has
 * billions of overlapping pairs and a call, a hash lookup and a 290-byte task record per pair
 * were most of the time. Every sum still adds the same terms in the same order (blame entries
 * are created when first hit, as before), so the figures are bit for bit the same:
 *   - only one host's tasks are held, in compact arrays (times, masks, the RATPs of the
 *     sub-types with data);
 *   - a window's own figures (T, its RATPs, its blame sums) are computed once per window;
 *   - the blame entry of (DE node, source stage) and the baseline cell of (target, source unit)
 *     are looked up once per window and source, then kept in a table stamped by window;
 *   - a host's two sweeps run side by side, the slot sweep on a second thread: they add to
 *     different blame entries (sub-type SLOTS or the others), and the slot sweep's entries,
 *     kept apart, join the others afterwards in the order they were made, after the run
 *     sweep's, as when the sweeps ran one after the other. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"

#define RUN_SUBS (0xFFu & ~(1u << IQ_S_SLOTS))

/* A run [lau, fin) with what its pairs need, so that a sweep reads runs in order. */
struct run { int64_t lau, fin; uint32_t i, unit, stage; uint8_t dmask; };

/* One host's tasks, in task order. */
struct host {
    size_t m, nv, capv;
    int64_t *sub, *lau, *fin;
    uint32_t *unit, *stage, *de;         /* de: first DE node of a target task, IQ_NONE otherwise */
    uint8_t *dmask, *pmask;              /* sub-types with data > 0; with RATP > 0 (a subset) */
    uint32_t *off;                       /* where the task's dmask sub-types start in rv and bl */
    double *rv, *bl;                     /* RATP and blame sum of each dmask sub-type */
    struct run *runs; size_t nrun;       /* the runs (fin > lau) by launch, then task order */
    uint32_t *by_sub; size_t nsub;       /* the waits (lau > sub) by submission, then task order */
    double rh[IQ_NSUB];                  /* RATP_h (1 / capacity): smallest positive on the host */
};

/* What the sweeps share: the host's tasks (read only, but for the blame sums of their own
 * sub-types) and the sources' numbering. */
struct sweep {
    const struct iqcar_result *r;
    struct host h;
    uint32_t self_src, unk_src, nsrc;
    bool drop_self;
};

/* One sweep's own state: where its blame entries (and baseline cells) go, its lookup tables and
 * active runs. */
struct jctx {
    struct sweep *c;
    struct iqcar_blame_out *o;
    /* per source: blame entry of each sub-type for the current window; per unit: baseline cell */
    struct src_slot { uint32_t stamp, be[IQ_NSUB]; } *src_cache;
    struct unit_slot { uint32_t stamp, cell; } *unit_cache;
    uint32_t stamp;
    int fail;
    struct run *act; size_t cap_act;
    bool slots;
};

/* Set bits of a byte (a table: without a popcount instruction the builtin is a library call). */
static const uint8_t bits8[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0), B6(1), B6(1), B6(2)
#undef B6
#undef B4
#undef B2
};

/* Where sub-type p's value sits among a task's values of the sub-types in mask. */
static inline unsigned rank_of(uint8_t mask, int p) { return bits8[mask & ((1u << p) - 1)]; }

uint32_t clarity__iqcar_be_add(struct iqcar_blame_out *o, uint32_t de, uint32_t src, size_t nsrc, double vc)
{
    int64_t key = (int64_t)de * (int64_t)nsrc + src;
    uint32_t k;
    if (!clarity_idmap_get(&o->be_map, key, &k)) {
        if (o->nbes == o->cap_bes) {
            size_t n = o->cap_bes ? o->cap_bes * 2 : 256;
            struct iqcar_be *p = realloc(o->bes, n * sizeof *p);
            if (!p) return IQ_NONE;
            o->bes = p, o->cap_bes = n;
        }
        if (o->nbes >= IQ_NONE) return IQ_NONE;
        k = (uint32_t)o->nbes;
        o->bes[o->nbes++] = (struct iqcar_be){de, src, 0};
        if (clarity_idmap_put(&o->be_map, key, k)) return IQ_NONE;
    }
    o->bes[k].vc += vc;
    return k;
}

static void next_window(struct jctx *c)
{
    if (++c->stamp) return;
    /* wrapped: forget every stamp */
    memset(c->src_cache, 0, c->c->nsrc * sizeof *c->src_cache);
    memset(c->unit_cache, 0, (c->c->r->nunits ? c->c->r->nunits : 1) * sizeof *c->unit_cache);
    c->stamp = 1;
}

/* The blame entry of (the window's DE + p, src), created as on its first blame; IQ_NONE when out
 * of memory. */
static uint32_t be_index(struct jctx *c, uint32_t de, uint32_t src, int p)
{
    struct src_slot *s = &c->src_cache[src];
    if (s->stamp != c->stamp) {
        s->stamp = c->stamp;
        for (int q = 0; q < IQ_NSUB; q++) s->be[q] = IQ_NONE;
    }
    if (s->be[p] == IQ_NONE && (s->be[p] = clarity__iqcar_be_add(c->o, de + (uint32_t)p, src, c->c->nsrc, 0)) == IQ_NONE)
        c->fail = 1;
    return s->be[p];
}

/* The baseline cell of (target unit ut, source unit us); IQ_NONE when out of memory. */
static uint32_t cell_index(struct jctx *c, uint32_t ut, uint32_t us)
{
    struct unit_slot *s = &c->unit_cache[us];
    if (s->stamp == c->stamp) return s->cell;
    struct iqcar_blame_out *o = c->o;
    int64_t key = (int64_t)ut * (int64_t)c->c->r->nunits + us;
    uint32_t k;
    if (!clarity_idmap_get(&o->cell_map, key, &k)) {
        if (o->ncells == o->cap_cells) {
            size_t n = o->cap_cells ? o->cap_cells * 2 : 256;
            struct iqcar_cell *p = realloc(o->cells, n * sizeof *p);
            if (!p) goto oom;
            o->cells = p, o->cap_cells = n;
        }
        if (o->ncells >= IQ_NONE) goto oom;
        k = (uint32_t)o->ncells;
        o->cells[o->ncells++] = (struct iqcar_cell){ut, us, 0};
        if (clarity_idmap_put(&o->cell_map, key, k)) goto oom;
    }
    s->stamp = c->stamp;
    s->cell = k;
    return k;
oom:
    c->fail = 1;
    return IQ_NONE;
}

/* A sum kept in a register while consecutive pairs add to the same entry: the entry's value is
 * read, added to in pair order and written back before another entry of its kind is touched, so
 * the entry gets the very additions, in the same order, it got one pair at a time. */
struct acc { uint32_t i; double v; };

/* A window's own figures, shared by its pairs. */
struct win {
    uint32_t i, unit, de, src;           /* src: the source of the blame sums in be */
    double T, rt[IQ_NSUB], bl[IQ_NSUB];
    uint8_t mask;                        /* sub-types that can take blame: RATP > 0 */
    double slot_k;                       /* slots, held: RATP_tt / RATP_h (0: no slot blame) */
    struct acc be[IQ_NSUB], cell;
    uint32_t cell_unit;
};

static void flush_be(struct jctx *c, struct acc *be)
{
    for (int p = 0; p < IQ_NSUB; p++)
        if (be[p].i != IQ_NONE) {
            c->o->bes[be[p].i].vc = be[p].v;
            be[p].i = IQ_NONE;
        }
}

/* Run window w against runs y[0..n) (skipping its own), each overlapping it from
 * max(launch, from) (from: the window's start for the active runs, none for those starting
 * inside it) to min(finish, e): the baseline's overlap / T_tt for another unit's run, and the
 * blame of each sub-type both used (Eq. 6). */
static void run_span(struct jctx *c, struct win *w, const struct run *y, size_t n, int64_t from, bool active, int64_t e)
{
    const struct host *h = &c->c->h;
    struct acc be[IQ_NSUB], cell = w->cell;
    double bl[IQ_NSUB], T = w->T;
    memcpy(be, w->be, sizeof be);
    memcpy(bl, w->bl, sizeof bl);
    uint32_t src_now = w->src, cell_unit = w->cell_unit, unit = w->unit, wi = w->i;
    unsigned wmask = w->mask;
    for (size_t j = 0; j < n; j++, y++) {
        if (y->i == wi) continue;
        double q = (double)((y->fin < e ? y->fin : e) - (active ? from : y->lau)) / T;
        bool self = y->unit == unit;
        if (!self) {
            if (y->unit != cell_unit) {
                if (cell.i != IQ_NONE) c->o->cells[cell.i].v = cell.v;
                if ((cell.i = cell_index(c, unit, y->unit)) == IQ_NONE) break;
                cell_unit = y->unit;
                cell.v = c->o->cells[cell.i].v;
            }
            cell.v += q;
        }
        unsigned dm = y->dmask & wmask;
        if (!dm) continue;
        uint32_t src = self ? c->c->self_src : y->stage;
        const double *rv = h->rv + h->off[y->i];
        for (; dm; dm &= dm - 1) {
            int p = __builtin_ctz(dm);
            double rs = rv[rank_of(y->dmask, p)];
            if (rs < h->rh[p]) rs = h->rh[p];   /* no task consumes faster than capacity */
            if (rs <= 0) continue;
            double b = q * (w->rt[p] / rs);
            if (b <= 0) continue;
            bl[p] += b;
            if (self && c->c->drop_self) continue;
            if (src != src_now) {
                flush_be(c, be);
                src_now = src;
            }
            if (be[p].i == IQ_NONE) {
                if ((be[p].i = be_index(c, w->de, src, p)) == IQ_NONE) goto out;
                be[p].v = c->o->bes[be[p].i].vc;
            }
            be[p].v += b;
        }
    }
out:
    memcpy(w->be, be, sizeof be);
    memcpy(w->bl, bl, sizeof bl);
    w->cell = cell;
    w->cell_unit = cell_unit;
    w->src = src_now;
}

/* Slot window w against runs y[0..n), each holding a slot for part of its wait (the overlap as
 * in run_span). Written once, compiled for each combination of the flags (they are constants at
 * every call): most pairs of a log are slot pairs. */
static inline __attribute__((always_inline)) void slot_span_t(struct jctx *c, struct win *w, const struct run *y, size_t n,
                                                              int64_t from, int64_t e, const bool active,
                                                              const bool wait_rule, const bool drop)
{
    const struct host *h = &c->c->h;
    double bl = w->bl[IQ_S_SLOTS], rh = h->rh[IQ_S_SLOTS], rt = w->rt[IQ_S_SLOTS], k = w->slot_k, T = w->T;
    struct acc be = w->be[IQ_S_SLOTS];
    uint32_t src_now = w->src, unit = w->unit, self_src = c->c->self_src;
    if (be.i == IQ_NONE) src_now = IQ_NONE;   /* no entry at hand: the first blame looks it up */
    for (const struct run *end = y + n; y < end; y++) {
        if (!(y->dmask & 1u << IQ_S_SLOTS)) continue;   /* DP_st = 0: the source did not use slots */
        /* an active run still running at the window's end overlaps all of it: q = T / T = 1 */
        double q = active && y->fin >= e ? 1.0 : (double)((y->fin < e ? y->fin : e) - (active ? from : y->lau)) / T, b;
        if (wait_rule) {
            double rs = h->rv[h->off[y->i]];   /* SLOTS is the lowest sub-type: rank 0 */
            if (rs < rh) rs = rh;
            if (rs <= 0) continue;
            b = q * (rt / rs);
        } else {
            b = q * k;
        }
        if (b <= 0) continue;
        bl += b;
        bool self = y->unit == unit;
        if (drop && self) continue;
        uint32_t src = self ? self_src : y->stage;
        if (src != src_now) {
            if (be.i != IQ_NONE) c->o->bes[be.i].vc = be.v;
            src_now = src;
            if ((be.i = be_index(c, w->de, src, IQ_S_SLOTS)) == IQ_NONE) break;
            be.v = c->o->bes[be.i].vc;
        }
        be.v += b;
    }
    w->bl[IQ_S_SLOTS] = bl;
    w->be[IQ_S_SLOTS] = be;
    w->src = src_now;
}

static void slot_span(struct jctx *c, struct win *w, const struct run *y, size_t n, int64_t from, bool active, int64_t e,
                      bool wait_rule)
{
    bool drop = c->c->drop_self;
#define SLOT_SPAN(A, W) \
    (drop ? slot_span_t(c, w, y, n, from, e, A, W, true) : slot_span_t(c, w, y, n, from, e, A, W, false))
    if (active) wait_rule ? SLOT_SPAN(true, true) : SLOT_SPAN(true, false);
    else wait_rule ? SLOT_SPAN(false, true) : SLOT_SPAN(false, false);
#undef SLOT_SPAN
}

static void win_begin(struct jctx *c, struct win *w, uint32_t wi, bool slots)
{
    const struct host *h = &c->c->h;
    w->i = wi;
    w->unit = h->unit[wi];
    w->de = h->de[wi];
    w->src = IQ_NONE;
    w->cell_unit = IQ_NONE;
    w->cell.i = IQ_NONE;
    for (int p = 0; p < IQ_NSUB; p++) w->be[p].i = IQ_NONE;
    w->T = slots ? (double)(h->lau[wi] - h->sub[wi]) : (double)(h->fin[wi] - h->lau[wi]);
    w->mask = h->pmask[wi] & (slots ? 1u << IQ_S_SLOTS : RUN_SUBS);
    const double *rv = h->rv + h->off[wi];
    for (unsigned m = w->mask; m; m &= m - 1) {
        int p = __builtin_ctz(m);
        w->rt[p] = rv[rank_of(h->dmask[wi], p)];
        w->bl[p] = 0;
    }
    /* Slots: a running task holds one slot however long it waited to get it, so every holder
     * consumes the slot capacity alike: its RATP is the host's floor RATP_h, as for a source that
     * did not wait (a zero wait floors RATP_st at RATP_h), and the blame is tt's overlap
     * fraction x RATP_tt / RATP_h (none when RATP_h is 0, as the blame formula gives). The
     * original design took the source's own SWT / slots offered as its RATP instead; that
     * divides the blame of a query by how long its tasks queued, and an aggressive query with
     * many tasks queues the longest behind its own fellow tasks, so it was blamed least for the
     * slots it held. Measured (bench/contention-eval.sh 10, docs/contention.md): against the
     * victims' speed-ups when the source is re-simulated away, the own-wait rule finds the first
     * culprit for 68% of 385 victims and this 71% (top-3 73% vs 72%); on the Section 7.4 runs
     * where more overlap is not the culprit, 1/20 -> 12/20. --slot-blame=wait keeps the
     * own-wait rule. */
    double rh = h->rh[IQ_S_SLOTS];
    w->slot_k = slots && (w->mask & 1u << IQ_S_SLOTS) && 0 < rh ? w->rt[IQ_S_SLOTS] / rh : 0;
    next_window(c);
}

static void win_end(struct jctx *c, struct win *w)
{
    struct host *h = &c->c->h;
    flush_be(c, w->be);
    if (w->cell.i != IQ_NONE) c->o->cells[w->cell.i].v = w->cell.v;
    double *bl = h->bl + h->off[w->i];
    for (unsigned m = w->mask; m; m &= m - 1) {
        int p = __builtin_ctz(m);
        bl[rank_of(h->dmask[w->i], p)] = w->bl[p];
    }
}

/* The sweep of clarity_iqcar_interval_join with same = true: windows by start, runs by launch.
 * Its active runs are kept in the same order (a finished run is replaced by the last one): the
 * pairs of a window are the active runs left after that, in array order, then the runs starting
 * inside the window, in launch order. */
static void join(struct jctx *c)
{
    struct host *h = &c->c->h;
    const struct run *R = h->runs;
    bool slots = c->slots, wait_rule = c->c->r->opt.slot_blame_wait;
    size_t nr = h->nrun, nw = slots ? h->nsub : h->nrun, rp = 0, nact = 0;
    struct win w;
    for (size_t x = 0; x < nw && !c->fail; x++) {
        uint32_t wi = slots ? h->by_sub[x] : R[x].i;
        int64_t s = slots ? h->sub[wi] : R[x].lau, e = slots ? h->lau[wi] : R[x].fin;
        for (; rp < nr && R[rp].lau <= s; rp++) {
            if (nact == c->cap_act) {
                size_t cap = c->cap_act ? c->cap_act * 2 : 1024;
                struct run *p = realloc(c->act, cap * sizeof *p);
                if (!p) {
                    c->fail = 1;
                    return;
                }
                c->act = p, c->cap_act = cap;
            }
            c->act[nact++] = R[rp];
        }
        struct run *act = c->act;
        for (size_t a = 0; a < nact;)
            if (act[a].fin <= s) act[a] = act[--nact];   /* finished before this and every later window */
            else a++;
        size_t lo = rp, hi = nr;   /* the runs starting inside the window: launch < e */
        while (lo < hi) {
            size_t m = lo + (hi - lo) / 2;
            if (R[m].lau < e) lo = m + 1;
            else hi = m;
        }
        size_t nin = lo - rp;
        /* a run window's own run is active (it starts at s and ends after); a wait window's starts
         * at its end, neither active nor inside */
        c->o->pairs += nact + nin - (slots ? 0 : 1);
        if (h->de[wi] == IQ_NONE) continue;   /* no target: its pairs are only counted */
        win_begin(c, &w, wi, slots);
        if (slots && w.mask) {
            slot_span(c, &w, act, nact, s, true, e, wait_rule);
            slot_span(c, &w, R + rp, nin, s, false, e, wait_rule);
        } else if (!slots) {
            run_span(c, &w, act, nact, s, true, e);
            run_span(c, &w, R + rp, nin, s, false, e);
        }
        win_end(c, &w);
    }
}

static void *join_thread(void *arg)
{
    join(arg);
    return NULL;
}

static void host_free(struct host *h)
{
    free(h->sub);
    free(h->lau);
    free(h->fin);
    free(h->unit);
    free(h->stage);
    free(h->de);
    free(h->dmask);
    free(h->pmask);
    free(h->off);
    free(h->rv);
    free(h->bl);
    free(h->runs);
    free(h->by_sub);
}

/* Room for m tasks (arrays sized for the largest host, reused host after host). */
static int host_alloc(struct host *h, size_t m)
{
    m = m ? m : 1;
    h->sub = malloc(m * sizeof *h->sub);
    h->lau = malloc(m * sizeof *h->lau);
    h->fin = malloc(m * sizeof *h->fin);
    h->unit = malloc(m * sizeof *h->unit);
    h->stage = malloc(m * sizeof *h->stage);
    h->de = malloc(m * sizeof *h->de);
    h->dmask = malloc(m * sizeof *h->dmask);
    h->pmask = malloc(m * sizeof *h->pmask);
    h->off = malloc(m * sizeof *h->off);
    h->runs = malloc(m * sizeof *h->runs);
    h->by_sub = malloc(m * sizeof *h->by_sub);
    return h->sub && h->lau && h->fin && h->unit && h->stage && h->de && h->dmask && h->pmask && h->off && h->runs &&
                   h->by_sub
               ? 0
               : -1;
}

/* Room for n more RATPs and blame sums. */
static int host_values(struct host *h, size_t n)
{
    if (h->nv + n <= h->capv) return 0;
    size_t c = h->capv ? h->capv : 1024;
    while (c < h->nv + n) c *= 2;
    double *rv = realloc(h->rv, c * sizeof *rv);
    if (!rv) return -1;
    h->rv = rv;
    double *bl = realloc(h->bl, c * sizeof *bl);
    if (!bl) return -1;
    h->bl = bl;
    h->capv = c;
    return 0;
}

/* The compact arrays of the tasks idx[0..m) (one host, in task order). */
static int host_fill(struct sweep *c, const uint32_t *idx, size_t m, const struct clarity_idmap *dem)
{
    const struct iqcar_result *r = c->r;
    struct host *h = &c->h;
    h->m = m;
    h->nv = 0;
    for (int p = 0; p < IQ_NSUB; p++) h->rh[p] = 0;
    for (size_t k = 0; k < m; k++) {
        struct iqcar_task t;
        clarity__iqcar_task_get(r, idx[k], &t);
        h->sub[k] = t.submit, h->lau[k] = t.launch, h->fin[k] = t.finish;
        h->unit[k] = t.unit, h->stage[k] = t.stage;
        uint32_t base = IQ_NONE;
        if (clarity__iqcar_is_target(r, &t) && !clarity_idmap_get(dem, (int64_t)t.stage * (int64_t)r->nhosts + t.host, &base))
            return -1;   /* build_targets gave every target a DE: cannot happen */
        h->de[k] = base;
        uint8_t dm = 0, pm = 0;
        for (int p = 0; p < IQ_NSUB; p++) {
            if (t.data[p] > 0) dm |= (uint8_t)(1u << p);
            if (t.ratp[p] > 0) pm |= (uint8_t)(1u << p);
            if (t.ratp[p] > 0 && (h->rh[p] == 0 || t.ratp[p] < h->rh[p])) h->rh[p] = t.ratp[p];
        }
        pm &= dm;   /* RATP > 0 implies data > 0; kept explicit, the blame sums live at data's ranks */
        if (host_values(h, IQ_NSUB) || h->nv > UINT32_MAX - IQ_NSUB) return -1;
        h->dmask[k] = dm, h->pmask[k] = pm;
        h->off[k] = (uint32_t)h->nv;
        for (int p = 0; p < IQ_NSUB; p++)
            if (dm & (1u << p)) {
                h->rv[h->nv] = t.ratp[p];
                h->bl[h->nv++] = 0;
            }
    }
    /* the runs array is free until it is filled: the sort's order and scratch */
    uint32_t *order = (uint32_t *)h->runs, *tmp = order + (m ? m : 1);
    h->nsub = clarity__iqcar_order_by_start(h->sub, h->lau, m, h->by_sub, tmp);
    h->nrun = clarity__iqcar_order_by_start(h->lau, h->fin, m, order, tmp);
    for (size_t j = h->nrun; j-- > 0;) {   /* backwards: run j covers order[8j..8j+7], all read already */
        uint32_t i = order[j];
        h->runs[j] = (struct run){h->lau[i], h->fin[i], i, h->unit[i], h->stage[i], h->dmask[i]};
    }
    return 0;
}

/* Unknown of every target task of the host: max(0, (RATP_tt - RATP_h) / RATP_h - sum of
 * blames); only sub-types with RATP_tt > 0 can have any. */
static int host_unknown(struct sweep *c, struct iqcar_blame_out *o)
{
    const struct host *h = &c->h;
    for (size_t k = 0; k < h->m; k++) {
        if (h->de[k] == IQ_NONE) continue;
        for (unsigned m = h->pmask[k]; m; m &= m - 1) {
            int p = __builtin_ctz(m);
            unsigned j = h->off[k] + rank_of(h->dmask[k], p);
            double u = clarity_iqcar_unknown(h->rv[j], h->rh[p], h->bl[j], 0);
            if (u > 0 && clarity__iqcar_be_add(o, h->de[k] + (uint32_t)p, c->unk_src, c->nsrc, u) == IQ_NONE) return -1;
        }
    }
    return 0;
}

static void jctx_free(struct jctx *j)
{
    free(j->src_cache);
    free(j->unit_cache);
    free(j->act);
}

static int jctx_init(struct jctx *j, struct sweep *c, struct iqcar_blame_out *o, bool slots)
{
    *j = (struct jctx){.c = c, .o = o, .slots = slots};
    j->src_cache = calloc(c->nsrc, sizeof *j->src_cache);
    j->unit_cache = calloc(c->r->nunits ? c->r->nunits : 1, sizeof *j->unit_cache);
    return j->src_cache && j->unit_cache ? 0 : -1;
}

/* Both sweeps of the host in c->h: the slot sweep on a second thread when the host is worth one,
 * its blame entries then appended to o after the run sweep's. */
static int host_sweeps(struct sweep *c, struct jctx *run, struct jctx *slot, struct iqcar_blame_out *apart)
{
    pthread_t tid;
    if (c->h.nrun < 4096 || pthread_create(&tid, NULL, join_thread, slot)) {
        join(run);
        slot->o = run->o;   /* one after the other: straight into o */
        join(slot);
        slot->o = apart;
        return run->fail || slot->fail ? -1 : 0;
    }
    join(run);
    pthread_join(tid, NULL);
    int rc = run->fail || slot->fail ? -1 : 0;
    for (size_t i = 0; i < apart->nbes && !rc; i++)
        if (clarity__iqcar_be_add(run->o, apart->bes[i].de, apart->bes[i].src, c->nsrc, apart->bes[i].vc) == IQ_NONE) rc = -1;
    run->o->pairs += apart->pairs;
    apart->pairs = apart->nbes = 0;
    clarity_idmap_free(&apart->be_map);
    memset(&apart->be_map, 0, sizeof apart->be_map);
    return rc;
}

int clarity__iqcar_blame_hosts(const struct iqcar_result *r, const struct clarity_idmap *dem, struct iqcar_blame_out *o)
{
    struct sweep c = {.r = r, .self_src = (uint32_t)r->nstages, .unk_src = (uint32_t)r->nstages + 1,
                      .nsrc = (uint32_t)r->nstages + 2, .drop_self = r->opt.self_mode == IQ_SELF_DROP};
    if (r->opt.self_mode != IQ_SELF_NODE) c.self_src = c.unk_src;
    size_t n = r->ntasks, maxm = 0;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    size_t *start = calloc(r->nhosts + 2, sizeof *start);
    struct iqcar_blame_out apart = {0};
    struct jctx run, slot;
    int rc = -1, jr = jctx_init(&run, &c, o, false), js = jctx_init(&slot, &c, &apart, true);
    if (!idx || !start || jr || js || r->nstages + 2 > IQ_NONE) goto out;
    /* the tasks of each host, in task order (a counting sort by host) */
    struct iqcar_task t;
    for (size_t i = 0; i < n; i++) {
        uint32_t hh;
        if (r->tab) hh = r->tab->host[i];
        else clarity__iqcar_task_get(r, i, &t), hh = t.host;
        start[hh + 2]++;
    }
    for (size_t h = 0; h < r->nhosts; h++) {
        if (start[h + 2] > maxm) maxm = start[h + 2];
        start[h + 2] += start[h + 1];
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t hh;
        if (r->tab) hh = r->tab->host[i];
        else clarity__iqcar_task_get(r, i, &t), hh = t.host;
        idx[start[hh + 1]++] = (uint32_t)i;
    }
    if (host_alloc(&c.h, maxm)) goto out;
    for (size_t h = 0; h < r->nhosts; h++) {
        size_t m = start[h + 1] - start[h];
        if (host_fill(&c, idx + start[h], m, dem) || host_sweeps(&c, &run, &slot, &apart) || host_unknown(&c, o)) goto out;
    }
    rc = 0;
out:
    host_free(&c.h);
    free(idx);
    free(start);
    jctx_free(&run);
    jctx_free(&slot);
    free(apart.bes);
    free(apart.cells);
    clarity_idmap_free(&apart.be_map);
    clarity_idmap_free(&apart.cell_map);
    return rc;
}
