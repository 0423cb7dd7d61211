/* Processor sharing: every host's CPU, disks and NIC are divided among the attempts using
 * them at each moment, and the rates are recomputed at every event on the host. Contention
 * (and what it costs whom) comes out of this model instead of being drawn on afterwards. */
#include <math.h>
#include <stdlib.h>
#include "synth/internal.h"
#include "util/vec.h"

static const int phase_res_default[PH_COUNT] = {
    [PH_LAUNCH] = RES_NONE, [PH_DESER] = RES_CPU, [PH_INPUT] = RES_DISK, [PH_FETCH_NET] = RES_NET,
    [PH_FETCH_DISK] = RES_DISK, [PH_COMPUTE] = RES_CPU, [PH_SPILL] = RES_DISK,
    [PH_SHUFFLE_WRITE] = RES_DISK, [PH_OUTPUT] = RES_DISK, [PH_RESULT_SER] = RES_NONE,
    [PH_RESULT_SEND] = RES_NONE,
};

/* Phases the JVM runs (and so a GC pause stops); launch and result transfer are in flight. */
static bool in_jvm(int phase) { return phase != PH_LAUNCH && phase != PH_RESULT_SEND; }

static bool paused(const struct sim *s, const struct sy_attempt *a, double t)
{
    return in_jvm(a->phase) && s->execs[a->exec].paused_until > t;
}

void clarity_phase_enter(struct sim *s, struct sy_attempt *a, int phase)
{
    while (phase < PH_COUNT && a->work[phase] <= 0) a->t_phase[phase++] = s->now;
    a->phase = phase;
    if (phase >= PH_COUNT) return;
    a->t_phase[phase] = s->now;
    a->remaining = a->work[phase];
    a->res = phase_res_default[phase];
    /* input not on this host comes over the network (HDFS remote read or a remote cached block) */
    if (phase == PH_INPUT && a->locality == LOC_ANY) a->res = RES_NET;
    if (phase == PH_INPUT && a->locality == LOC_PROCESS) a->res = RES_CPU;
    struct sy_exec *e = &s->execs[a->exec];
    if (phase == PH_DESER && e->paused_until > s->now) a->gc_s += e->paused_until - s->now;
}

void clarity_host_add_attempt(struct sim *s, struct sy_host *h, int32_t id)
{
    if (CLARITY_VEC_RESERVE(h->att, h->cap_att, (size_t)h->natt + 1)) {
        SIM_FAIL(s, "out of memory");
        return;
    }
    s->att[id].host_slot = h->natt;
    h->att[h->natt++] = id;
}

void clarity_host_remove_attempt(struct sim *s, struct sy_host *h, int32_t id)
{
    int k = s->att[id].host_slot;
    h->att[k] = h->att[--h->natt];
    s->att[h->att[k]].host_slot = k;
}

/* Queries using one resource on one host, with the sum of their rates. */
struct qsum { int q; double rate; };

static int qsums(const struct sim *s, const struct sy_host *h, int res, struct qsum *out, int cap, double *total)
{
    int n = 0;
    *total = 0;
    for (int i = 0; i < h->natt; i++) {
        const struct sy_attempt *a = &s->att[h->att[i]];
        if (a->res != res || a->rate <= 0) continue;
        int q = s->stages[a->stage].query, k;
        *total += a->rate;
        for (k = 0; k < n && out[k].q != q; k++) {}
        if (k == n) {
            if (n == cap) continue;
            out[n++] = (struct qsum){q, 0};
        }
        out[k].rate += a->rate;
    }
    return n;
}

static int fault_for(const struct sy_host *h, int res)
{
    return res == RES_CPU ? (h->fault_cpu >= 0 ? h->fault_cpu : h->fault_mem)
         : res == RES_DISK ? h->fault_disk : res == RES_NET ? h->fault_net : -1;
}

/* Moves every attempt on the host from h->last to s->now at the rates set last time, and
 * books what each lost to whom. */
void clarity_host_advance(struct sim *s, struct sy_host *h)
{
    double dt = s->now - h->last;
    if (dt <= 0) return;
    struct qsum qs[RES_COUNT][32];
    int nq[RES_COUNT] = {0};
    double tot[RES_COUNT] = {0};
    for (int r = RES_CPU; r < RES_COUNT; r++) nq[r] = qsums(s, h, r, qs[r], 32, &tot[r]);
    for (int i = 0; i < h->natt; i++) {
        struct sy_attempt *a = &s->att[h->att[i]];
        struct sy_exec *e = &s->execs[a->exec];
        int q = s->stages[a->stage].query;
        if (paused(s, a, h->last)) {
            a->wait[W_GC] += dt;
            /* the part of a pause a CPU or memory hog added is the fault's */
            int fh = h->fault_cpu >= 0 ? h->fault_cpu : h->fault_mem;
            if (e->pause_len > 0 && e->pause_len > e->pause_nominal && fh >= 0) {
                double f = dt * (e->pause_len - e->pause_nominal) / e->pause_len;
                a->wait_fault += f;
                a->fault_seen = fh;
                s->fault_delay[fh] += f;
                clarity_truth_pair(s, q, s->nqueries + fh, RES_CPU, h->last, f);
            }
            continue;
        }
        double prog = a->rate * dt;
        a->remaining -= prog;
        if (a->remaining < 0) a->remaining = 0;
        if (a->res == RES_CPU) {
            if (a->phase == PH_DESER) a->cpu_deser += prog;
            else a->cpu_done += prog;
        }
        if (a->res == RES_NONE || a->max_rate <= 0) continue;
        clarity_truth_usage(s, q, a->res, h->last, prog);
        double lost = dt * (1.0 - a->rate / a->max_rate);
        if (lost <= 0) continue;
        double lost_fault = dt * (a->rate_nofault - a->rate) / a->max_rate;
        if (lost_fault < 0) lost_fault = 0;
        if (lost_fault > lost) lost_fault = lost;
        double lost_cont = lost - lost_fault;
        int wc = a->res == RES_CPU ? W_CPU : a->res == RES_DISK ? W_DISK : W_NET;
        int f = a->res == RES_NET && a->fault_remote >= 0 ? a->fault_remote : fault_for(h, a->res);
        if (a->res == RES_CPU && h->fault_cpu < 0 && h->fault_mem >= 0) {
            /* a memory hog slows compute through page faults and reclaim: memory wait */
            a->wait[W_MEM] += lost_fault;
            a->wait[wc] += lost_cont;
        } else {
            a->wait[wc] += lost;
        }
        if (lost_fault > 0 && f >= 0) {
            a->wait_fault += lost_fault;
            a->fault_seen = f;
            s->fault_delay[f] += lost_fault;
            clarity_truth_pair(s, q, s->nqueries + f, a->res, h->last, lost_fault);
        }
        double others = tot[a->res] - a->rate;
        if (lost_cont <= 0 || others <= 0) continue;
        for (int k = 0; k < nq[a->res]; k++) {
            double share = (qs[a->res][k].rate - (qs[a->res][k].q == q ? a->rate : 0)) / others;
            if (share <= 0) continue;
            double d = lost_cont * share;
            if (qs[a->res][k].q == q) a->wait_self += d;
            else a->wait_other += d;
            clarity_truth_pair(s, q, qs[a->res][k].q, a->res, h->last, d);
        }
    }
    for (int k = 0; k < h->nexecs; k++) clarity_jvm_advance(s, &s->execs[h->execs[k]], dt);
    h->last = s->now;
}

/* tc shapes a host's egress, so a throttled host also serves its shuffle blocks slowly to
 * every fetcher elsewhere. A fetcher pulls 1/(H-1) of its remote bytes from each other host, in
 * parallel; a sender whose egress N fetchers share caps each at (H-1) * egress / N. Returns the
 * lowest cap on fetchers of host h and the fault behind it. */
static double sender_cap(const struct sim *s, const struct sy_host *h, int *fault)
{
    int total = 0;
    for (int v = 0; v < s->nhosts; v++) total += s->hosts[v].fetching;
    double cap = INFINITY;
    *fault = -1;
    for (int v = 0; v < s->nhosts; v++) {
        const struct sy_host *x = &s->hosts[v];
        int n = total - x->fetching;
        if (x == h || x->net_factor >= 1 || n <= 0) continue;
        double c = s->cfg->nic_bw * x->net_factor * (s->nhosts - 1) / n;
        if (c < cap) cap = c, *fault = x->fault_net;
    }
    return cap;
}

/* What the remote caps depend on: 0 while no NIC is throttled (then nothing is summed, so
 * runs without a network fault pay nothing per event). */
static double net_signature(const struct sim *s)
{
    if (!s->nthrottled) return 0;
    double thr = 0;
    int total = 0;
    for (int v = 0; v < s->nhosts; v++) thr += 1 - s->hosts[v].net_factor, total += s->hosts[v].fetching;
    return 1e6 * thr + total;
}

static void reschedule(struct sim *s, struct sy_host *h);

/* New rates for the attempts on the host, from who is using what now; moves their timers.
 * When a throttled sender's fetchers changed, fetchers on the other hosts get new caps too. */
void clarity_host_reschedule(struct sim *s, struct sy_host *h)
{
    reschedule(s, h);
    if (!s->nthrottled && s->net_sig == 0) return;
    double sig = net_signature(s);
    if (sig == s->net_sig) return;
    s->net_sig = sig;
    for (int v = 0; v < s->nhosts; v++) {
        struct sy_host *x = &s->hosts[v];
        if (x == h || !x->fetching) continue;
        clarity_host_advance(s, x);
        reschedule(s, x);
    }
}

static void reschedule(struct sim *s, struct sy_host *h)
{
    const struct synth_config *c = s->cfg;
    h->last = s->now;
    int n[RES_COUNT] = {0};
    h->fetching = 0;
    for (int i = 0; i < h->natt; i++) {
        struct sy_attempt *a = &s->att[h->att[i]];
        if (paused(s, a, s->now)) continue;
        n[a->res]++;
        h->fetching += a->phase == PH_FETCH_NET && a->res == RES_NET;
    }
    int capf = -1;
    double cap = s->nthrottled ? sender_cap(s, h, &capf) : INFINITY;
    double rate[RES_COUNT], nofault[RES_COUNT], maxr[RES_COUNT];
    rate[RES_NONE] = nofault[RES_NONE] = maxr[RES_NONE] = 1;
    double nc = n[RES_CPU] ? n[RES_CPU] : 1;
    maxr[RES_CPU] = 1;
    nofault[RES_CPU] = fmin(1.0, h->cores / nc);
    rate[RES_CPU] = fmin(1.0, h->cores / (nc + h->hog_threads)) / (1.0 + 0.5 * h->mem_intensity);
    double nd = n[RES_DISK] ? n[RES_DISK] : 1;
    maxr[RES_DISK] = c->disk_bw;
    nofault[RES_DISK] = fmin(c->disk_bw, h->disks * c->disk_bw / nd);
    rate[RES_DISK] = fmin(c->disk_bw, h->disks * c->disk_bw / (nd + h->disk_hog_streams));
    double nn = n[RES_NET] ? n[RES_NET] : 1;
    maxr[RES_NET] = c->nic_bw;
    nofault[RES_NET] = c->nic_bw / nn;
    rate[RES_NET] = c->nic_bw * h->net_factor / nn;
    for (int k = 0; k < h->nexecs; k++) s->execs[h->execs[k]].alloc_rate = 0;
    for (int i = 0; i < h->natt; i++) {
        int32_t id = h->att[i];
        struct sy_attempt *a = &s->att[id];
        if (a->phase >= PH_COUNT) continue;
        if (paused(s, a, s->now)) {
            a->rate = 0;
            clarity_timer_cancel(&s->heap, a->timer);
            continue;
        }
        a->rate = rate[a->res];
        a->fault_remote = -1;
        if (a->phase == PH_FETCH_NET && a->res == RES_NET && cap < a->rate) a->rate = cap, a->fault_remote = capf;
        a->rate_nofault = nofault[a->res];
        a->max_rate = maxr[a->res];
        if (a->res == RES_CPU && a->phase == PH_COMPUTE) s->execs[a->exec].alloc_rate += a->rate * a->alloc_per_cpu;
        /* records read or fetched become objects: reading allocates too */
        if ((a->phase == PH_INPUT || a->phase == PH_FETCH_NET || a->phase == PH_FETCH_DISK) && a->res != RES_CPU)
            s->execs[a->exec].alloc_rate += a->rate * 1.5;
        if (clarity_timer_set(&s->heap, a->timer, s->now + a->remaining / a->rate)) SIM_FAIL(s, "out of memory");
    }
    for (int k = 0; k < h->nexecs; k++) clarity_jvm_schedule(s, &s->execs[h->execs[k]]);
}
