/* Straggler detection and cause attribution within one stage attempt (thesis 4.7.3, with
 * the details of the author's trace-analysis scripts). */
#include <stdlib.h>
#include <string.h>
#include "util/checked.h"
#include "clarity/arena.h"
#include "clarity/stragglers.h"
#include "util/stats.h"

/* task k of the stage: all[idx[k]], or all[k] when the caller passes no index */
#define IX(k) (idx ? idx[(k)] : (k))

static const char *const cause_names[CLARITY_SC_COUNT] = {
    "scheduler_delay", "shuffle_read", "shuffle_write", "gc", "output_skew", "first_task", "slow_host", "slow_executor",
};
static const char *const cause_labels[CLARITY_SC_COUNT] = {
    "scheduler delay", "shuffle read", "shuffle write", "GC", "output skew", "first task (JIT)", "slow host",
    "slow executor",
};
const char *clarity_scause_name(int c) { return c >= 0 && c < CLARITY_SC_COUNT ? cause_names[c] : "?"; }
const char *clarity_scause_label(int c) { return c >= 0 && c < CLARITY_SC_COUNT ? cause_labels[c] : "?"; }

/* 1.5 x m, less a relative epsilon so that a rate exactly at the threshold (by decimal
 * arithmetic) counts as reaching it despite binary rounding: ">= threshold" is a straggler,
 * "< threshold" is explained, as the thesis' own scripts do. */
static double threshold(double m) { return CLARITY_STRAGGLER_FACTOR * m * (1 - 1e-9); }

static double rate_without(const struct clarity_task_comp *c, int cause)
{
    double x = 0;
    switch (cause) {
    case CLARITY_SC_SCHED_DELAY: x = c->sched_delay_ms; break;
    case CLARITY_SC_SHUFFLE_READ: x = c->fetch_wait_ms + c->local_read_ms; break;
    case CLARITY_SC_SHUFFLE_WRITE: x = c->shuffle_write_ms; break;
    case CLARITY_SC_GC: x = c->gc_ms; break;
    default: break;
    }
    double r = c->runtime_ms - x;
    return (r > 0 ? r : 0) / (double)clarity_task_input_bytes(c);
}

/* Median of f(task) over the tasks with input (those are the only ones rated). */
static double median_over(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *buf,
                          int cause)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[IX(k)];
        if (clarity_task_input_bytes(c) > 0) buf[m++] = rate_without(c, cause);
    }
    return clarity_median_mean_mid(buf, m);
}

/* The host (or executor) holding most stragglers, if they cluster there: at least two, at
 * least half of the stage's, and a straggler rate at least twice that of the other hosts.
 * *found gets its string id, 0 when there is none. */
static int concentrated(const struct clarity_task_comp *all, const size_t *idx, size_t n, const uint16_t *flags,
                        bool by_host, size_t nstrag, uint32_t *found, size_t *s_out, size_t *n_out,
                        struct clarity_error *err)
{
    *found = 0;
    /* one pass, counting rated tasks and stragglers per host (or executor) in first-seen
     * order; a scan per distinct key cost n x executors on big clusters */
    struct clarity_idmap slot_of = {0};
    uint32_t *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *tot = calloc(n ? n : 1, sizeof *tot), *str = calloc(n ? n : 1, sizeof *str);
    size_t distinct = 0, rated = 0;
    uint32_t best = 0;
    size_t best_s = 0, best_n = 0;
    bool ok = keys && tot && str;
    for (size_t k = 0; ok && k < n; k++) {
        const struct clarity_task_comp *c = &all[IX(k)];
        if (clarity_task_input_bytes(c) <= 0) continue;
        rated++;
        uint32_t key = by_host ? c->host : c->executor, slot;
        if (!clarity_idmap_get(&slot_of, key, &slot)) {
            slot = (uint32_t)distinct++;
            keys[slot] = key;
            if (clarity_idmap_put(&slot_of, key, slot) != 0) ok = false;
        }
        tot[slot]++;
        if (flags[k] & CLARITY_SF_STRAGGLER) str[slot]++;
    }
    for (size_t q = 0; ok && q < distinct; q++)
        if (str[q] > best_s) {
            best = keys[q];
            best_s = str[q];
            best_n = tot[q];
        }
    clarity_idmap_free(&slot_of);
    free(keys);
    free(tot);
    free(str);
    if (!ok) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory looking for a slow host");
    if (distinct < 2 || best_s < 2 || 2 * best_s < nstrag) return 0;
    double here = (double)best_s / (double)best_n;
    double other = rated > best_n ? (double)(nstrag - best_s) / (double)(rated - best_n) : 0;
    if (here < 2 * other) return 0;
    *s_out = best_s;
    *n_out = best_n;
    *found = best;
    return 0;
}

static void data_skew(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *buf,
                      struct clarity_stage_strag *out, uint16_t *flags)
{
    size_t m = 0;
    double maxb = 0, maxr = 0;
    for (size_t k = 0; k < n; k++) {
        int64_t b = clarity_task_input_bytes(&all[IX(k)]);
        if (b > 0) { buf[m++] = (double)b; if (b > maxb) maxb = (double)b; }
    }
    double medb = clarity_median_mean_mid(buf, m);
    m = 0;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[IX(k)];
        int64_t r = c->shuffle_read_bytes > 0 ? c->shuffle_read_records : c->input_records;
        if (r > 0) { buf[m++] = (double)r; if (r > maxr) maxr = (double)r; }
    }
    double medr = clarity_median_mean_mid(buf, m);
    out->bytes_max_over_median = medb > 0 ? maxb / medb : 0;
    out->records_max_over_median = medr > 0 ? maxr / medr : 0;
    for (size_t k = 0; k < n; k++) buf[k] = all[IX(k)].runtime_ms;
    double medt = clarity_median_mean_mid(buf, n);
    if (n < 2 || medt <= 0) return;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[IX(k)];
        if (c->runtime_ms < threshold(medt)) continue;
        out->slow_tasks++;
        int64_t r = c->shuffle_read_bytes > 0 ? c->shuffle_read_records : c->input_records;
        if ((medb > 0 && (double)clarity_task_input_bytes(c) >= threshold(medb)) ||
            (medr > 0 && (double)r >= threshold(medr))) {
            out->slow_tasks_more_data++;
            flags[k] |= CLARITY_SF_SLOW_DATA;
        }
    }
}

struct hf { uint32_t host; int64_t finish; size_t k; };

static int hf_cmp(const void *pa, const void *pb)
{
    const struct hf *a = pa, *b = pb;
    if (a->host != b->host) return a->host < b->host ? -1 : 1;
    return (a->finish > b->finish) - (a->finish < b->finish);
}

/* first[k]: launched before the first finish of any task of the stage on its host. false when
 * out of memory. */
static bool host_first_finish(const struct clarity_task_comp *all, const size_t *idx, size_t n, bool *first)
{
    struct hf *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return false;
    for (size_t k = 0; k < n; k++) v[k] = (struct hf){all[IX(k)].host, all[IX(k)].finish_ms, k};
    qsort(v, n, sizeof *v, hf_cmp);
    int64_t earliest = 0;
    for (size_t r = 0; r < n; r++) {
        if (r == 0 || v[r].host != v[r - 1].host) earliest = v[r].finish;
        first[v[r].k] = all[IX(v[r].k)].launch_ms < earliest;
    }
    free(v);
    return true;
}

int clarity_stragglers_stage(const struct clarity_task_comp *all, const size_t *idx, size_t n,
                             struct clarity_stage_strag *out, uint16_t *flags, double *ratio, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->tasks = n;
    if (n) out->stage = all[IX(0)].stage;
    for (size_t k = 0; k < n; k++) {
        flags[k] = 0;
        if (ratio) ratio[k] = 0;
    }
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory looking for stragglers");
    bool stage_shuffle = false;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[IX(k)];
        if (clarity_task_input_bytes(c) > 0) out->with_input++;
        if (c->shuffle_read_bytes > 0) stage_shuffle = true;
    }
    out->shuffle_input = stage_shuffle;
    data_skew(all, idx, n, buf, out, flags);
    double med = median_over(all, idx, n, buf, -1);
    out->median_ipr = med;
    if (n == 0) out->skipped = "no successful task";
    else if (out->with_input == 0) out->skipped = "no task read input or shuffle data";
    else if (med <= 0) out->skipped = "the median task took 0 ms";
    if (out->skipped) { free(buf); return 0; }

    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[IX(k)];
        if (clarity_task_input_bytes(c) <= 0) continue;
        double r = rate_without(c, -1);
        if (ratio) ratio[k] = r / med;
        if (r >= threshold(med)) { flags[k] |= CLARITY_SF_STRAGGLER; out->stragglers++; }
    }
    if (out->stragglers) {
        static const int simple[] = {CLARITY_SC_SCHED_DELAY, CLARITY_SC_SHUFFLE_READ, CLARITY_SC_SHUFFLE_WRITE,
                                     CLARITY_SC_GC};
        for (size_t q = 0; q < sizeof simple / sizeof *simple; q++) {
            int cause = simple[q];
            if (cause == CLARITY_SC_SHUFFLE_READ && !stage_shuffle) continue;   /* [R] */
            double mx = median_over(all, idx, n, buf, cause);
            for (size_t k = 0; k < n; k++)
                if ((flags[k] & CLARITY_SF_STRAGGLER) &&
                    rate_without(&all[IX(k)], cause) < threshold(mx))
                    flags[k] |= 1u << cause;
        }
        /* Output skew: not a straggler by runtime per output byte (shuffle write + output). */
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            const struct clarity_task_comp *c = &all[IX(k)];
            int64_t ob = clarity_sat_add(c->shuffle_write_bytes, c->output_bytes);
            if (ob > 0) buf[m++] = c->runtime_ms / (double)ob;
        }
        double mo = clarity_median_mean_mid(buf, m);
        for (size_t k = 0; k < n; k++) {
            const struct clarity_task_comp *c = &all[IX(k)];
            int64_t ob = clarity_sat_add(c->shuffle_write_bytes, c->output_bytes);
            if ((flags[k] & CLARITY_SF_STRAGGLER) && ob > 0 &&
                c->runtime_ms / (double)ob < threshold(mo))
                flags[k] |= 1u << CLARITY_SC_OUTPUT_SKEW;
        }
        /* First task on its host (launched before any task of the stage finished there):
         * JIT warm-up. Tested last, on stragglers nothing else explains, against the other
         * first tasks' compute rate. */
        bool *first = calloc(n ? n : 1, sizeof *first);
        if (!first || !host_first_finish(all, idx, n, first)) {
            free(first);
            free(buf);
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory looking for stragglers");
        }
        m = 0;
        for (size_t k = 0; k < n; k++) {
            const struct clarity_task_comp *c = &all[IX(k)];
            if (first[k] && clarity_task_input_bytes(c) > 0)
                buf[m++] = clarity_task_compute_ms(c) / (double)clarity_task_input_bytes(c);
        }
        double mf = clarity_median_mean_mid(buf, m);
        for (size_t k = 0; k < n; k++) {
            const struct clarity_task_comp *c = &all[IX(k)];
            if ((flags[k] & CLARITY_SF_STRAGGLER) && !(flags[k] & CLARITY_SC_THESIS_MASK) && first[k] &&
                clarity_task_compute_ms(c) / (double)clarity_task_input_bytes(c) < threshold(mf))
                flags[k] |= 1u << CLARITY_SC_FIRST_TASK;
        }
        free(first);
        int rc = concentrated(all, idx, n, flags, true, out->stragglers, &out->slow_host, &out->slow_host_stragglers,
                              &out->slow_host_tasks, err);
        if (!rc)
            rc = concentrated(all, idx, n, flags, false, out->stragglers, &out->slow_executor,
                              &out->slow_exec_stragglers, &out->slow_exec_tasks, err);
        if (rc) { free(buf); return rc; }
        for (size_t k = 0; k < n; k++) {
            if (!(flags[k] & CLARITY_SF_STRAGGLER)) continue;
            const struct clarity_task_comp *c = &all[IX(k)];
            if (out->slow_host && c->host == out->slow_host) flags[k] |= 1u << CLARITY_SC_SLOW_HOST;
            if (out->slow_executor && c->executor == out->slow_executor) flags[k] |= 1u << CLARITY_SC_SLOW_EXECUTOR;
            for (int q = 0; q < CLARITY_SC_COUNT; q++)
                if (flags[k] & (1u << q)) out->by_cause[q]++;
            if (flags[k] & CLARITY_SC_THESIS_MASK) out->explained_thesis++;
            if (flags[k] & ((1u << CLARITY_SC_COUNT) - 1)) out->explained++;
        }
    }
    free(buf);
    return 0;
}
