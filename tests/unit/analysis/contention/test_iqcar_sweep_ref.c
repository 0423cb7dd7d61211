/* The blame sweep (iqcar_blame.c) against a reference on small random task tables: the
 * reference is the straightforward form it replaced, a callback per overlapping pair from
 * clarity_iqcar_interval_join with the blame of Eq. 6 added up pair by pair into a hash of
 * blame entries and a dense units x units baseline. The fast sweep must give the same entries
 * in the same order with bit-identical sums, the same baseline cells, and the same pair count
 * (also checked against an O(n^2) count of overlapping windows). Also the radix order of
 * windows against qsort. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"
#include "iqcar_fixture.h"

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8 & 0xffffff;
}

/* ---- the reference: one callback per pair, as before ---- */
struct ref {
    const struct iqcar_result *r;
    const uint32_t *idx;
    bool slots;
    double ratp_h[IQ_NSUB];
    double *blames, *overlap;
    const int64_t *de_base;
    uint32_t self_src, unk_src, nsrc;
    struct iqcar_blame_out o;
};

static void ref_pair(void *ctx, size_t wi, size_t si, int64_t ov)
{
    struct ref *c = ctx;
    const struct iqcar_result *r = c->r;
    uint32_t tti = c->idx[wi], sti = c->idx[si];
    const struct iqcar_task *tt = &r->tasks[tti], *st = &r->tasks[sti];
    c->o.pairs++;
    bool self = tt->unit == st->unit;
    if (c->de_base[tti] < 0) return;
    if (!c->slots && !self) {
        double T = (double)(tt->finish - tt->launch);
        if (T > 0) c->overlap[(size_t)tt->unit * r->nunits + st->unit] += (double)ov / T;
    }
    uint32_t src = self ? (r->opt.self_mode == IQ_SELF_NODE ? c->self_src : c->unk_src) : st->stage;
    int p0 = c->slots ? IQ_S_SLOTS : IQ_S_SLOTS + 1, p1 = c->slots ? IQ_S_SLOTS + 1 : IQ_NSUB;
    double T = c->slots ? (double)(tt->launch - tt->submit) : (double)(tt->finish - tt->launch);
    for (int p = p0; p < p1; p++) {
        if (st->data[p] <= 0) continue;
        double rst = c->slots && !r->opt.slot_blame_wait ? 0 : st->ratp[p];
        double b = clarity_iqcar_blame((double)ov, T, tt->ratp[p], rst, c->ratp_h[p]);
        if (b <= 0) continue;
        c->blames[(size_t)tti * IQ_NSUB + p] += b;
        if (self && r->opt.self_mode == IQ_SELF_DROP) continue;
        cr_assert_neq(clarity__iqcar_be_add(&c->o, (uint32_t)(c->de_base[tti] + p), src, c->nsrc, b), IQ_NONE);
    }
}

static void ref_sweep(struct ref *c)
{
    const struct iqcar_result *r = c->r;
    size_t n = r->ntasks;
    uint32_t *idx = malloc(n * sizeof *idx);
    int64_t *a = malloc(3 * n * sizeof *a);
    for (size_t h = 0; h < r->nhosts; h++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (r->tasks[i].host == h) idx[m++] = (uint32_t)i;
        c->idx = idx;
        int64_t *sub = a, *lau = a + m, *fin = a + 2 * m;
        for (int p = 0; p < IQ_NSUB; p++) c->ratp_h[p] = 0;
        for (size_t k = 0; k < m; k++) {
            const struct iqcar_task *t = &r->tasks[idx[k]];
            sub[k] = t->submit, lau[k] = t->launch, fin[k] = t->finish;
            for (int p = 0; p < IQ_NSUB; p++)
                if (t->ratp[p] > 0 && (c->ratp_h[p] == 0 || t->ratp[p] < c->ratp_h[p])) c->ratp_h[p] = t->ratp[p];
        }
        c->slots = false;
        cr_assert_eq(clarity_iqcar_interval_join(lau, fin, m, lau, fin, m, true, ref_pair, c, NULL), 0);
        c->slots = true;
        cr_assert_eq(clarity_iqcar_interval_join(sub, lau, m, lau, fin, m, true, ref_pair, c, NULL), 0);
        for (size_t k = 0; k < m; k++) {
            uint32_t ti = idx[k];
            if (c->de_base[ti] < 0) continue;
            for (int p = 0; p < IQ_NSUB; p++) {
                double u = clarity_iqcar_unknown(r->tasks[ti].ratp[p], c->ratp_h[p], c->blames[(size_t)ti * IQ_NSUB + p], 0);
                if (u > 0) cr_assert_neq(clarity__iqcar_be_add(&c->o, (uint32_t)(c->de_base[ti] + p), c->unk_src, c->nsrc, u), IQ_NONE);
            }
        }
    }
    free(idx);
    free(a);
}

/* ---- random task tables ---- */
struct shape { size_t units, stages, hosts, tasks; int64_t span, maxlen, maxwait; };

static void random_tasks(struct iqcar_result *r, const struct shape *sh, unsigned seed)
{
    fx_init(r);
    free(r->tasks);
    r->tasks = calloc(sh->tasks, sizeof *r->tasks);
    char nm[32];
    for (size_t u = 0; u < sh->units; u++) {
        snprintf(nm, sizeof nm, "Q%zu", u);
        fx_unit(r, nm);
    }
    for (size_t s = 0; s < sh->stages; s++) {
        snprintf(nm, sizeof nm, "s%zu", s);
        fx_stage(r, s % sh->units, nm);
        r->stages[s].critical = rnd(&seed) % 3 != 0;
    }
    for (size_t h = 0; h < sh->hosts; h++) {
        snprintf(nm, sizeof nm, "h%zu", h);
        fx_host(r, nm);
    }
    for (size_t i = 0; i < sh->tasks; i++) {
        int64_t t0 = (int64_t)(rnd(&seed) % (unsigned)sh->span);
        int64_t len = rnd(&seed) % 10 == 0 ? 0 : (int64_t)(rnd(&seed) % (unsigned)sh->maxlen);
        struct iqcar_task *t = fx_task(r, rnd(&seed) % sh->stages, rnd(&seed) % sh->hosts, t0, t0 + len, IQ_S_NET, 0, 0);
        t->submit = rnd(&seed) % 4 == 0 ? t0 : t0 - (int64_t)(rnd(&seed) % (unsigned)sh->maxwait);
        for (int p = 0; p < IQ_NSUB; p++) {
            /* some sub-types without data (no blame as a source), some without wait */
            t->data[p] = rnd(&seed) % 4 == 0 ? 0 : 1 + rnd(&seed) % 5000;
            t->wait[p] = rnd(&seed) % 3 == 0 ? 0 : (double)(rnd(&seed) % 700);
        }
        t->wait[IQ_S_SLOTS] = (double)(t->launch - t->submit);
        if (rnd(&seed) % 5) t->data[IQ_S_SLOTS] = 1 + rnd(&seed) % 4;
        t->ok = rnd(&seed) % 8 != 0;
        clarity_iqcar_task_ratps(t, &r->src);
    }
    r->src.tasks = r->ntasks;
}

/* The (stage x host) -> DE base map of the target tasks, and each task's base (-1: no target). */
static void de_bases(const struct iqcar_result *r, struct clarity_idmap *dem, int64_t *base)
{
    uint32_t next = 1000;
    for (size_t i = 0; i < r->ntasks; i++) {
        const struct iqcar_task *t = &r->tasks[i];
        base[i] = -1;
        if (!clarity__iqcar_is_target(r, t)) continue;
        int64_t key = (int64_t)t->stage * (int64_t)r->nhosts + t->host;
        uint32_t b;
        if (!clarity_idmap_get(dem, key, &b)) {
            b = next, next += IQ_NSUB;
            cr_assert_eq(clarity_idmap_put(dem, key, b), 0);
        }
        base[i] = b;
    }
}

/* Overlapping windows by brute force: every ordered pair of different tasks on one host whose
 * run window (or wait window) overlaps the other's run. */
static size_t brute_pairs(const struct iqcar_result *r)
{
    size_t n = 0;
    for (size_t a = 0; a < r->ntasks; a++)
        for (size_t b = 0; b < r->ntasks; b++) {
            const struct iqcar_task *x = &r->tasks[a], *y = &r->tasks[b];
            if (a == b || x->host != y->host || y->finish <= y->launch) continue;
            if (x->finish > x->launch && x->launch < y->finish && y->launch < x->finish) n++;
            if (x->launch > x->submit && x->submit < y->finish && y->launch < x->launch) n++;
        }
    return n;
}

static void check(const struct shape *sh, unsigned seed, int self_mode, bool wait_rule, bool succ, bool crit)
{
    struct iqcar_result r;
    random_tasks(&r, sh, seed);
    r.opt.self_mode = self_mode;
    r.opt.slot_blame_wait = wait_rule;
    r.opt.successful_only = succ;
    r.opt.critical_path = crit;
    struct clarity_idmap dem = {0};
    int64_t *base = malloc(r.ntasks * sizeof *base);
    de_bases(&r, &dem, base);
    struct ref c = {.r = &r, .de_base = base, .self_src = (uint32_t)r.nstages, .unk_src = (uint32_t)r.nstages + 1,
                    .nsrc = (uint32_t)r.nstages + 2};
    c.blames = calloc(r.ntasks * IQ_NSUB, sizeof *c.blames);
    c.overlap = calloc(r.nunits * r.nunits, sizeof *c.overlap);
    ref_sweep(&c);
    struct iqcar_blame_out o = {0};
    cr_assert_eq(clarity__iqcar_blame_hosts(&r, &dem, &o), 0);
    cr_expect_eq(o.pairs, c.o.pairs, "seed %u: pairs %zu, reference %zu", seed, o.pairs, c.o.pairs);
    cr_expect_eq(o.pairs, brute_pairs(&r), "seed %u: pairs against brute force", seed);
    cr_assert_eq(o.nbes, c.o.nbes, "seed %u: %zu blame entries, reference %zu", seed, o.nbes, c.o.nbes);
    for (size_t i = 0; i < o.nbes; i++) {
        cr_expect(o.bes[i].de == c.o.bes[i].de && o.bes[i].src == c.o.bes[i].src, "seed %u: entry %zu key", seed, i);
        cr_expect(memcmp(&o.bes[i].vc, &c.o.bes[i].vc, sizeof(double)) == 0, "seed %u: entry %zu: %.17g, reference %.17g",
                  seed, i, o.bes[i].vc, c.o.bes[i].vc);
    }
    size_t nonzero = 0;
    for (size_t k = 0; k < r.nunits * r.nunits; k++) nonzero += c.overlap[k] != 0;
    cr_expect_eq(o.ncells, nonzero, "seed %u: %zu cells, reference %zu", seed, o.ncells, nonzero);
    for (size_t i = 0; i < o.ncells; i++) {
        double want = c.overlap[(size_t)o.cells[i].row * r.nunits + o.cells[i].col];
        cr_expect(memcmp(&o.cells[i].v, &want, sizeof want) == 0, "seed %u: cell %zu", seed, i);
    }
    free(o.bes);
    free(o.cells);
    clarity_idmap_free(&o.be_map);
    clarity_idmap_free(&o.cell_map);
    free(c.o.bes);
    clarity_idmap_free(&c.o.be_map);
    free(c.blames);
    free(c.overlap);
    free(base);
    clarity_idmap_free(&dem);
    clarity_iqcar_result_free(&r);
}

Test(iqcar_sweep, random_tables_match_the_reference)
{
    const struct shape sh = {.units = 4, .stages = 9, .hosts = 3, .tasks = 90, .span = 3000, .maxlen = 600, .maxwait = 500};
    for (unsigned seed = 1; seed <= 40; seed++)
        check(&sh, seed, (int)(seed % 3), seed % 4 == 1, seed % 5 == 2, seed % 7 == 3);
}

/* Many ties: a handful of distinct times. */
Test(iqcar_sweep, ties_match_the_reference)
{
    const struct shape sh = {.units = 3, .stages = 5, .hosts = 2, .tasks = 70, .span = 4, .maxlen = 4, .maxwait = 3};
    for (unsigned seed = 1; seed <= 30; seed++) check(&sh, seed, (int)(seed % 3), seed % 2, false, false);
}

/* A host large enough for the slot sweep's second thread, whose entries must join the others
 * in the same order. */
Test(iqcar_sweep, threaded_host_matches_the_reference)
{
    const struct shape sh = {.units = 5, .stages = 12, .hosts = 1, .tasks = 6000, .span = 400000, .maxlen = 900, .maxwait = 700};
    check(&sh, 7, IQ_SELF_NODE, false, false, false);
    check(&sh, 8, IQ_SELF_UNKNOWN, true, true, false);
}

static int cmp_key(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

Test(iqcar_sweep, order_by_start_is_qsort_order)
{
    unsigned seed = 11;
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + rnd(&seed) % 300;
        int64_t *s = malloc(n * sizeof *s), *e = malloc(n * sizeof *e), *key = malloc(2 * n * sizeof *key);
        uint32_t *out = malloc(n * sizeof *out), *tmp = malloc(n * sizeof *tmp);
        /* narrow, wide (several radix passes) and negative ranges */
        int64_t scale = round % 3 == 0 ? 5 : round % 3 == 1 ? 1000003 : (int64_t)1 << 40;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            s[i] = ((int64_t)(rnd(&seed) % 1000) - 500) * scale;
            e[i] = s[i] + (int64_t)(rnd(&seed) % 3) - 1;
            if (e[i] > s[i]) key[2 * k] = s[i], key[2 * k + 1] = (int64_t)i, k++;
        }
        qsort(key, k, 2 * sizeof *key, cmp_key);
        cr_assert_eq(clarity__iqcar_order_by_start(s, e, n, out, tmp), k);
        for (size_t j = 0; j < k; j++) cr_expect_eq(out[j], (uint32_t)key[2 * j + 1], "round %d at %zu", round, j);
        free(s), free(e), free(key), free(out), free(tmp);
    }
}
