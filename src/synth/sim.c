/* synth_run: sets up the cluster and the workload, then runs the event loop. Each event is
 * handled at its time; a host's rates are recomputed whenever something on it changes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include "synth/internal.h"

static int mkdir_p(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

static void derive(struct synth_config *c)
{
    /* over-provisioning: the extra hosts are part of the cluster the application asked for */
    c->hosts += c->idle_executors;
    c->heap_derived = !c->executor_heap;
    if (!c->executor_cores) c->executor_cores = c->cores / c->executors_per_host;
    if (!c->executor_heap) {
        /* 70% of the host for executor heaps, at most 2 GiB per core and 32 GiB (compressed oops) */
        double h = 0.7 * c->host_memory / c->executors_per_host;
        if (h > 2.0 * 1073741824 * c->executor_cores) h = 2.0 * 1073741824 * c->executor_cores;
        c->executor_heap = h > 32.0 * 1073741824 ? 32.0 * 1073741824 : h;
    }
    if (!c->dyn_max) c->dyn_max = c->hosts * (c->cores / c->executor_cores);
}

static void sim_free(struct sim *s)
{
    for (int i = 0; i < s->nstages; i++) {
        struct sy_stage *st = &s->stages[i];
        if (st->pend_all || st->pend_host || st->pend_exec || st->spec_q) clarity_taskset_remove(s, st);
        free(st->tasks);
        free(st->tt);
        free(st->succ_dur);
    }
    for (int i = 0; i < s->nexecs; i++) {
        if (s->execs[i].log) fclose(s->execs[i].log);
        if (s->execs[i].gc) fclose(s->execs[i].gc);
    }
    for (int h = 0; h < s->nhosts; h++) free(s->hosts[h].att);
    if (s->driver_log) fclose(s->driver_log);
    if (s->truth_tasks) fclose(s->truth_tasks);
    if (s->ev) clarity_out_close(s->ev, NULL);
    free(s->hosts); free(s->execs); free(s->queries); free(s->jobs); free(s->stages);
    free(s->att); free(s->att_free); free(s->active);
    clarity_sb_free(&s->line);
    clarity_sb_free(&s->tmp);
    clarity_truth_free(s);
    clarity_theap_free(&s->heap);
    free(s);
}

static int setup(struct sim *s, struct clarity_error *err)
{
    const struct synth_config *c = s->cfg;
    rng_seed(&s->rng_work, c->seed, 1);
    rng_seed(&s->rng_sched, c->seed, 2);
    rng_seed(&s->rng_fail, c->seed, 3);
    rng_seed(&s->rng_jvm, c->seed, 4);
    clarity_theap_init(&s->heap);
    time_t sec = (time_t)(c->start_ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
    snprintf(s->app_id, sizeof s->app_id, "app-%s-%04d", stamp, (int)(c->seed % 10000));
    s->nhosts = c->hosts;
    s->hosts = calloc((size_t)c->hosts, sizeof *s->hosts);
    if (!s->hosts) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    for (int h = 0; h < c->hosts; h++) {
        struct sy_host *x = &s->hosts[h];
        snprintf(x->name, sizeof x->name, "host%d", h + 1);
        x->idx = h;
        x->cores = c->cores;
        x->disks = c->disks;
        x->net_factor = 1;
        x->fault_cpu = x->fault_disk = x->fault_net = x->fault_mem = -1;
    }
    s->npools = c->fair ? 3 : 1;
    s->pools[0] = (struct sy_pool){"default", 1, 0, 0};
    s->pools[1] = (struct sy_pool){"etl", 1, 0, 0};
    s->pools[2] = (struct sy_pool){"bi", 2, c->cores, 0};
    s->backlog_since = -1;
    s->add_step = 1;
    s->skew_stage = s->skew_part = -1;
    for (int k = 0; k < 4; k++) s->kill_exec[k] = -1;
    if (clarity_workload_build(s)) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "cannot build the workload");
    if (c->skew_key > 0) {
        /* skew on a key: the heaviest shuffle read (first such stage on ties) gets a hot partition */
        double best = 0;
        for (int i = 0; i < s->nstages; i++) {
            double total = s->stages[i].sr_bytes * s->stages[i].ntasks;
            if (s->stages[i].ntasks >= 2 && total > best) best = total, s->skew_stage = i;
        }
        /* a fixed partition (a third of the way in): the choice draws nothing from the streams */
        if (s->skew_stage >= 0) s->skew_part = s->stages[s->skew_stage].ntasks / 3;
    }
    if (clarity_truth_init(s)) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    char p[4200];
    snprintf(p, sizeof p, "%s/eventlogs", s->outdir);
    if (mkdir_p(p)) return clarity_error_set(err, CLARITY_EIO, p, 0, 0, "cannot create: %s", strerror(errno));
    if (c->logs) {
        snprintf(p, sizeof p, "%s/gc", s->outdir);
        if (mkdir_p(p)) return clarity_error_set(err, CLARITY_EIO, p, 0, 0, "cannot create: %s", strerror(errno));
    }
    if (c->truth_tasks) {
        snprintf(p, sizeof p, "%s/truth-tasks.jsonl", s->outdir);
        s->truth_tasks = fopen(p, "w");
        if (!s->truth_tasks) return clarity_error_set(err, CLARITY_EIO, p, 0, 0, "cannot create: %s", strerror(errno));
        setvbuf(s->truth_tasks, NULL, _IOFBF, 1 << 20);
    }
    return CLARITY_OK;
}

static void start(struct sim *s)
{
    const struct synth_config *c = s->cfg;
    s->end_timer = clarity_timer_new(&s->heap, TK_APP_END, 0);
    s->fault_timer = clarity_timer_new(&s->heap, TK_FAULT, 0);
    s->alloc_timer = clarity_timer_new(&s->heap, TK_ALLOC, 0);
    s->spec_timer = clarity_timer_new(&s->heap, TK_SPEC, 0);
    clarity_ev_preamble(s);
    if (c->dynalloc) {
        for (int i = 0; i < c->dyn_min; i++) clarity_exec_create(s, i % s->nhosts, 1.5 + 2.0 * rng_unit(&s->rng_sched));
        clarity_timer_set(&s->heap, s->alloc_timer, 1.0);
    } else {
        for (int k = 0; k < c->executors_per_host; k++)
            for (int h = 0; h < s->nhosts; h++) clarity_exec_create(s, h, 1.5 + 2.0 * rng_unit(&s->rng_sched));
    }
    for (int q = 0; q < s->nqueries; q++)
        clarity_timer_set(&s->heap, clarity_timer_new(&s->heap, TK_ARRIVAL, q), s->queries[q].arrival_t);
    if (c->speculation) clarity_timer_set(&s->heap, s->spec_timer, 0.1);
    for (int k = 0; k < c->nkill; k++) clarity_timer_set(&s->heap, clarity_timer_new(&s->heap, TK_KILL, k), c->kill[k].at_s);
    clarity_fault_timer(s);
}

static void loop(struct sim *s)
{
    while (!s->err && !s->app_done) {
        if (theap_empty(&s->heap)) {
            SIM_FAIL(s, "the simulation stalled with %d of %d queries done (no executor can run the pending tasks)",
                     s->queries_done, s->nqueries);
            return;
        }
        int32_t id = clarity_theap_pop(&s->heap);
        struct timer *t = &s->heap.timers[id];
        s->now = t->t;
        int32_t ref = t->ref;
        switch (t->kind) {
        case TK_ATTEMPT: clarity_attempt_timer(s, ref); break;
        case TK_EXEC: clarity_exec_timer(s, ref); break;
        case TK_ARRIVAL: clarity_timer_release(&s->heap, id); clarity_query_arrive(s, ref); break;
        case TK_JOB_SUBMIT: clarity_timer_release(&s->heap, id); clarity_job_submit_next(s, ref); break;
        case TK_FAULT: clarity_fault_timer(s); break;
        case TK_LOCALITY: clarity_sched_locality_timer(s, ref); break;
        case TK_KILL: clarity_timer_release(&s->heap, id); clarity_exec_kill(s, ref); break;
        case TK_ALLOC:
            clarity_alloc_tick(s);
            clarity_timer_set(&s->heap, s->alloc_timer, s->now + 1.0);
            break;
        case TK_SPEC:
            clarity_spec_tick(s);
            clarity_timer_set(&s->heap, s->spec_timer, s->now + 0.1);
            break;
        case TK_APP_END:
            s->end_t = s->now;
            for (int h = 0; h < s->nhosts; h++) clarity_host_advance(s, &s->hosts[h]);
            clarity_ev_app_end(s);
            s->app_done = true;
            break;
        }
        if (s->now > 90 * 86400.0) SIM_FAIL(s, "simulated time passed 90 days; the workload is too large for the cluster");
    }
}

int clarity_synth_run(const struct synth_config *cfg_in, const char *outdir, struct synth_result *res, struct clarity_error *err)
{
    int rc = clarity_synth_config_check(cfg_in, err);
    if (rc) return rc;
    struct synth_config cfg = *cfg_in;
    derive(&cfg);
    struct sim *s = calloc(1, sizeof *s);
    if (!s) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    s->cfg = &cfg;
    snprintf(s->outdir, sizeof s->outdir, "%s", outdir);
    memset(res, 0, sizeof *res);
    if (mkdir_p(outdir)) {
        rc = clarity_error_set(err, CLARITY_EIO, outdir, 0, 0, "cannot create: %s", strerror(errno));
        sim_free(s);
        return rc;
    }
    rc = setup(s, err);
    if (rc) {
        sim_free(s);
        return rc;
    }
    snprintf(res->app_id, sizeof res->app_id, "%s", s->app_id);
    snprintf(res->eventlog, sizeof res->eventlog, "%s/eventlogs/%s%s", outdir, s->app_id,
             cfg.codec == SYNTH_CODEC_ZSTD ? ".zstd" : cfg.codec == SYNTH_CODEC_LZ4 ? ".lz4" : "");
    s->ev = clarity_out_open(res->eventlog, cfg.codec);
    if (!s->ev) {
        rc = clarity_error_set(err, CLARITY_EIO, res->eventlog, 0, 0, "cannot create: %s", strerror(errno));
        sim_free(s);
        return rc;
    }
    clarity_logs_open(s);
    start(s);
    loop(s);
    clarity_logs_close(s);
    uint64_t bytes = 0;
    if (clarity_out_close(s->ev, &bytes) && !s->err) SIM_FAIL(s, "cannot write the event log");
    s->ev = NULL;
    if (s->truth_tasks && fclose(s->truth_tasks) && !s->err) SIM_FAIL(s, "cannot write truth-tasks.jsonl");
    s->truth_tasks = NULL;
    if (!s->err && clarity_truth_write(s, res)) SIM_FAIL(s, "cannot write truth.json");
    if (s->err) {
        rc = clarity_error_set(err, CLARITY_EIO, NULL, 0, 0, "%s", s->errmsg);
        sim_free(s);
        return rc;
    }
    res->tasks = s->tasks_done;
    res->stages = (uint64_t)s->next_stage_id;
    res->jobs = (uint64_t)s->next_job_id;
    res->queries = (uint64_t)s->nqueries;
    res->executors = (uint64_t)s->nexecs;
    res->events = s->events;
    res->abnormal_tasks = s->abnormal;
    res->eventlog_bytes = bytes;
    res->runtime_ms = sim_ms(s, s->end_t) - cfg.start_ms;
    sim_free(s);
    return CLARITY_OK;
}
