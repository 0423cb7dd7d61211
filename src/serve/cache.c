/* The models of recently asked applications, as SHS keeps retainedApplications: bounded by
 * count and by bytes, the least recently used dropped first. A model in use by a request is
 * never freed under it (reference counts); a model of an older generation of its log (the log
 * grew or changed) is marked stale and freed once its last request ends. Two requests for the
 * same log wait for one load instead of loading twice. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "serve/serve_internal.h"

/* Freeing a large model leaves its pages in the allocator's arenas: each request thread
 * allocates from its own arena, so a model freed by one thread is not reused by the next
 * load on another, and RSS grew to 2.3 GB over two loads of a 1.2 GB model under a 512 MiB
 * bound (10 M tasks). Past this many bytes freed, the free pages go back to the system
 * (glibc's malloc_trim, outside the cache's lock: it walks every arena). */
#define TRIM_BYTES ((size_t)64 << 20)

/* The process's resident bytes (/proc/self/statm), 0 when unknown: logged around
 * malloc_trim, so what it gives back is measured where it runs. */
static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, res = 0;
    bool ok = f && fscanf(f, "%lu %lu", &size, &res) == 2;
    if (f) fclose(f);
    return ok ? (size_t)res * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

static void trim(const struct serve_cache *c, const char *why)
{
    size_t r0 = rss_bytes();
    malloc_trim(0);
    size_t r1 = rss_bytes();
    clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "cache: %s; malloc_trim: RSS %zu -> %zu MiB", why, r0 >> 20, r1 >> 20);
}

static void trim_if(const struct serve_cache *c, size_t before, size_t after)
{
    if (before <= after || before - after < TRIM_BYTES) return;
    char why[64];
    snprintf(why, sizeof why, "%zu MiB of models freed", (before - after) >> 20);
    trim(c, why);
}

/* What a whole load of a log takes the process to, per task attempt: on the 10 M-task log of
 * bench/scale-axes.sh (NDS q72 renumbered, 10,006,464 task attempts) the model counts 952 MiB
 * (100 bytes a task) and the process peaked at 1,312 MiB while loading it (137.5 bytes a
 * task; bench/serve-big.sh). The peak is what --max-memory must hold, so it decides; the rest
 * of a model (jobs, stages, SQL plans) is small beside the tasks on any log large enough for
 * the question to arise. */
#define LOAD_PEAK_BYTES_PER_TASK 138

size_t clarity__serve_model_estimate(const struct serve_entry *e)
{
    return (size_t)e->tasks * LOAD_PEAK_BYTES_PER_TASK;
}

void clarity__serve_cache_init(struct serve_cache *c, const struct clarity_server *srv, size_t max_apps, size_t max_bytes)
{
    memset(c, 0, sizeof *c);
    c->srv = srv;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->max_apps = max_apps;
    c->max_bytes = max_bytes;
}

static void model_free(struct serve_model *m)
{
    if (m->app) clarity_app_free(m->app);
    clarity_app_resume_free(m->resume);
    free(m->path);
    free(m);
}

void clarity__serve_cache_free(struct serve_cache *c)
{
    for (struct serve_model *m = c->head, *next; m; m = next) {
        next = m->next;
        model_free(m);
    }
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}

/* What a model holds: its arenas (events, strings) and its task and accumulable columns. An
 * estimate (allocator overhead and the hash tables kept after loading are not counted). */
static size_t model_bytes(const struct clarity_app *a)
{
    return a->arena.used_bytes + a->strs.arena.used_bytes + clarity_app_task_bytes(a) + clarity_app_accumulable_bytes(a);
}

static void unlink_model(struct serve_cache *c, struct serve_model *m)
{
    for (struct serve_model **p = &c->head; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            c->n--;
            c->bytes -= m->bytes;
            return;
        }
}

/* Frees unused models, oldest use first, while the cache is over its bounds with room bytes
 * more; keep is spared. */
static void evict_for(struct serve_cache *c, const struct serve_model *keep, size_t room)
{
    while (c->n > c->max_apps || c->bytes + room > c->max_bytes) {
        struct serve_model *victim = NULL;
        for (struct serve_model *m = c->head; m; m = m->next)
            if (m != keep && !m->refs && !m->loading && (!victim || m->used < victim->used)) victim = m;
        if (!victim) return;
        unlink_model(c, victim);
        c->evictions++;
        model_free(victim);
    }
}

static void evict(struct serve_cache *c, const struct serve_model *keep) { evict_for(c, keep, 0); }

/* Room to make before a partial load of a log (one stage, or no task rows): such a model
 * holds the log's stages, jobs, executors and SQL plans whatever it keeps of tasks, so a
 * partial model of the same log already cached tells its size (184 MiB on the 10 M-task
 * log, whose one-stage models each held that again: three of them, two cached and one
 * loading, took the process to 735 MiB under a 512 MiB bound). The room is twice that size
 * because the load's peak is more than the model it leaves: on that log a one-stage load
 * raised the process by 280-290 MiB above what was cached (the model plus the reader's
 * buffers and the stage's rows while they are gathered), so making room for the model alone
 * still peaked at 509-586 MiB under 512 MiB. 0 when none is cached. */
static size_t partial_room(const struct serve_cache *c, const struct serve_model *m)
{
    size_t room = 0;
    for (const struct serve_model *o = c->head; o; o = o->next)
        if (o != m && (o->only_stage || o->no_tasks || o->fold) && !strcmp(o->path, m->path) && o->bytes > room) room = o->bytes;
    return room * 2;
}

/* A model loaded with SQL plan graphs answers every route; one without them answers all but
 * /sql. Graphs cost load time (the SQL listener's replay runs on one thread), so they are loaded
 * only for a /sql request, as a second model of the same log. */
static bool serves(const struct serve_model *m, const struct clarity_load_options *lo)
{
    if (lo->sql_plan_graphs && !m->sql) return false;
    /* an answer that reads no task row reads what every partial load keeps as a whole one
     * does (stage and executor rows, the environment, storage) */
    if (lo->no_task_rows) return true;
    /* every row a batch at a time: a fold that kept them on disk, or a whole model */
    if (lo->task_fold == clarity__serve_fold_rows_wanted) return m->rows_on_disk || (!m->only_stage && !m->no_tasks && !m->fold);
    /* sums over tasks: a model that folded them, or a whole one */
    if (lo->task_fold) return m->fold || (!m->only_stage && !m->no_tasks);
    if (m->no_tasks || m->fold) return false;
    return !m->only_stage || (lo->only_stage && lo->only_stage_id == m->only_stage_id);
}

/* A whole model of the log first (it answers every route), else one that answers this
 * request (the SQL graphs it needs, the stage it reads). */
static struct serve_model *find(struct serve_cache *c, const struct serve_entry *e, const struct clarity_load_options *lo)
{
    struct serve_model *part = NULL;
    for (struct serve_model *m = c->head; m; m = m->next) {
        if (m->stale || strcmp(m->path, e->path) || !serves(m, lo)) continue;
        if (!m->only_stage && !m->no_tasks && !m->fold) return m;
        if (!part) part = m;
    }
    return part;
}

/* A model with task rows answers every route a model without them answers (serves), and
 * holds the same rest: on the 10 M-task log that rest is 184 MiB, so keeping both held it
 * twice. The model without task rows of the same generation is dropped (when its last
 * request ends). Called under the lock. */
static void drop_no_task_models(struct serve_cache *c, const struct serve_model *m)
{
    for (struct serve_model **p = &c->head; *p;) {
        struct serve_model *o = *p;
        if (o != m && o->no_tasks && !o->loading && o->app && !strcmp(o->path, m->path) && o->size == m->size &&
            o->mtime_ns == m->mtime_ns) {
            o->stale = true;
            if (!o->refs) {
                unlink_model(c, o);
                model_free(o);
                continue;   /* *p is now the next model */
            }
        }
        p = &o->next;
    }
}

int clarity__serve_fold_wanted(void *ctx, const struct clarity_app *a, size_t row, uint64_t ordinal)
{
    (void)ctx, (void)a, (void)row, (void)ordinal;
    return -1;
}

int clarity__serve_fold_rows_wanted(void *ctx, const struct clarity_app *a, size_t row, uint64_t ordinal)
{
    (void)ctx, (void)a, (void)row, (void)ordinal;
    return -1;
}

/* With *fold, the task sums are folded while reading (and with rows_dir, every task row
 * kept in a file there); when the fold cannot stand for the rows (clarity_shs_fold_attach: a
 * task seen again after its end, launches straddling a job's window) the log is read again
 * whole and *fold is cleared. */
static int load(const struct serve_entry *e, const struct clarity_load_options *lo, bool *fold, const char *rows_dir,
                struct clarity_app **out, struct clarity_app_resume **resume, struct clarity_error *err)
{
    struct clarity_source_list list = {0};
    const char *paths[] = {e->path};
    int rc = clarity_source_resolve(paths, 1, &list, err);
    if (rc == CLARITY_OK && list.napps != 1)
        rc = clarity_error_set(err, CLARITY_EFORMAT, e->path, 0, 0, "no longer one application");
    struct clarity_load_options flo = *lo;
    flo.task_fold = NULL;
    struct clarity_shs_fold *f = NULL;
    if (rc == CLARITY_OK && *fold) {
        if (clarity_shs_fold_new(&f) != CLARITY_OK) {
            rc = clarity_error_set(err, CLARITY_ENOMEM, e->path, 0, 0, "out of memory");
        } else {
            struct clarity_load_options fo = flo;
            clarity_shs_fold_options(f, &fo);
            /* no route answered from sums shows them; rows kept on disk keep them for the
             * stage list with details, which a later request may ask of the same model */
            fo.keep_task_accumulables = rows_dir != NULL;
            fo.user_task_accumulables_only = true;
            bool exact = false;
            if (rows_dir) rc = clarity_shs_fold_spill(f, rows_dir, err);
            if (rc == CLARITY_OK) rc = clarity_app_load(&list.apps[0], &fo, out, err);
            if (rc == CLARITY_OK && (rc = clarity_shs_fold_attach(f, *out, &exact)) != CLARITY_OK)
                clarity_error_set(err, rc, e->path, 0, 0, "out of memory");
            if (rc != CLARITY_OK || !exact) {
                clarity_shs_fold_free(f);
                clarity_app_free(*out);
                *out = NULL;
            }
            if (rc == CLARITY_OK && exact) {
                clarity_source_list_free(&list);
                return CLARITY_OK;
            }
            *fold = false;
        }
    }
    if (rc == CLARITY_OK) rc = clarity_app_load_resumable(&list.apps[0], &flo, out, resume, err);
    clarity_source_list_free(&list);
    return rc;
}

/* A grown append-only log: its cached model reads on from where it stopped instead of being
 * loaded again, when nothing uses it (it changes in place), it has the loader's state, and
 * the log only grew (larger, the same head as far as the listing read it; the loader checks
 * the file is the same one and no shorter). Called under the lock, which it releases while
 * reading; true when m now is the entry's generation (the caller looks again), false when it
 * was not continued (the caller drops it and loads the log). */
static bool resume(struct serve_cache *c, struct serve_model *m, const struct serve_entry *e)
{
    if (!m->resume || !m->app || m->refs || m->loading || m->stale || e->size <= m->size) return false;
    if (m->head_hash && e->head_hash && m->head_hash != e->head_hash) return false;
    m->loading = true;
    m->refs = 1;
    pthread_mutex_unlock(&c->mu);
    struct clarity_error err = {0};
    uint64_t from = 0, read = 0;
    int rc = clarity_app_resume(m->resume, m->app, &from, &read, &err);
    pthread_mutex_lock(&c->mu);
    m->loading = false;
    m->refs = 0;
    if (rc != CLARITY_OK) {
        /* half-continued: dropped, and the log loaded whole by the caller */
        clarity__serve_log(c->srv, CLARITY_SERVE_WARN, "resume: %s: %s; reading it whole", m->path, err.msg);
        clarity_app_resume_free(m->resume);
        m->resume = NULL;
        pthread_cond_broadcast(&c->cv);
        return false;
    }
    c->bytes -= m->bytes;
    m->bytes = model_bytes(m->app);
    c->bytes += m->bytes;
    m->size = e->size;
    m->mtime_ns = e->mtime_ns;
    if (e->head_hash) m->head_hash = e->head_hash;
    c->resumes++;
    c->resume_bytes += read;
    clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "resume: %s: read %llu bytes from offset %llu (not the whole log); %zu tasks",
                       m->path, (unsigned long long)read, (unsigned long long)from, m->app->tasks.n);
    pthread_cond_broadcast(&c->cv);
    return true;
}

struct serve_model *clarity__serve_cache_get(struct serve_cache *c, const struct serve_entry *e,
                                             const struct clarity_load_options *lo, struct clarity_error *err)
{
    pthread_mutex_lock(&c->mu);
    struct serve_model *m;
    for (;;) {
        m = find(c, e, lo);
        if (m && (m->size != e->size || m->mtime_ns != e->mtime_ns) && resume(c, m, e)) continue;
        if (m && (m->size != e->size || m->mtime_ns != e->mtime_ns)) {
            /* the listing saw a newer generation: this one serves its current requests only */
            m->stale = true;
            if (!m->refs && !m->loading) {
                unlink_model(c, m);
                model_free(m);
            }
            m = NULL;
        }
        if (!m || !m->loading) break;
        pthread_cond_wait(&c->cv, &c->mu);
    }
    if (m) {
        if (!m->app) {
            /* a failed load is remembered for this generation: the log is read again only when
             * it changes */
            *err = m->err;
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        m->refs++;
        m->used = ++c->tick;
        c->hits++;
        pthread_mutex_unlock(&c->mu);
        return m;
    }
    m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(e->path))) {
        free(m);
        pthread_mutex_unlock(&c->mu);
        clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        return NULL;
    }
    m->size = e->size;
    m->mtime_ns = e->mtime_ns;
    m->head_hash = e->head_hash;
    m->sql = lo->sql_plan_graphs;
    m->only_stage = lo->only_stage && !lo->sql_plan_graphs;
    m->only_stage_id = lo->only_stage_id;
    m->no_tasks = lo->no_task_rows && !lo->sql_plan_graphs;
    m->fold = lo->task_fold && !m->no_tasks && !m->only_stage;
    m->rows_on_disk = m->fold && lo->task_fold == clarity__serve_fold_rows_wanted && !m->sql;
    m->loading = true;
    m->refs = 1;
    m->next = c->head;
    c->head = m;
    c->n++;
    c->loads++;
    size_t room_before = 0, room_after = 0;
    if (m->only_stage || m->no_tasks || m->fold) {
        room_before = room_after = c->bytes;
        evict_for(c, m, partial_room(c, m));
        room_after = c->bytes;
        if (room_before > room_after)
            clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "cache: %zu MiB of models dropped to make room for a partial load",
                               (room_before - room_after) >> 20);
    }
    pthread_mutex_unlock(&c->mu);
    /* the dropped models' pages go back before the load, not after it: on the 10 M-task log a
     * /sql load made right after a 184 MiB model was dropped for it peaked at 666 MiB under a
     * 512 MiB bound, against 485 MiB as a first load (the freed pages were not all reused) */
    trim_if(c, room_before, room_after);

    if (m->only_stage)
        clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "load: %s, stage %lld's tasks only (a whole load ~%zu MiB > --max-memory)",
                           e->path, (long long)m->only_stage_id, clarity__serve_model_estimate(e) >> 20);
    else if (m->fold)
        clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "load: %s, task sums folded while reading%s (a whole load ~%zu MiB > --max-memory)",
                           e->path, m->rows_on_disk ? ", task rows kept on disk" : "", clarity__serve_model_estimate(e) >> 20);
    else if (m->no_tasks)
        clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "load: %s, no task rows (a whole load ~%zu MiB > --max-memory)",
                           e->path, clarity__serve_model_estimate(e) >> 20);
    /* outside the lock: a slow log holds up only the requests that need it */
    struct clarity_app *app = NULL;
    bool fold = m->fold;
    int rc = load(e, lo, &fold, m->rows_on_disk ? c->srv->opt.tmp_dir : NULL, &app, &m->resume, &m->err);

    pthread_mutex_lock(&c->mu);
    m->loading = false;
    m->used = ++c->tick;
    if (m->fold && !fold)
        clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "load: %s: task sums cannot stand for the rows; read whole", e->path);
    m->fold = fold;
    m->rows_on_disk = m->rows_on_disk && fold;
    if (rc == CLARITY_OK) {
        m->app = app;
        m->bytes = model_bytes(app);
        c->bytes += m->bytes;
        if (!m->no_tasks) drop_no_task_models(c, m);
        clarity__serve_log(c->srv, CLARITY_SERVE_INFO, "load: %s: %zu tasks, model %zu MiB%s", e->path, app->tasks.n,
                           m->bytes >> 20, m->only_stage ? " (one stage)" : m->no_tasks ? " (no task rows)" : m->fold ? " (task sums)" : "");
    } else {
        m->refs--;
        *err = m->err;
    }
    size_t before = c->bytes;
    evict(c, m);
    size_t after = c->bytes;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    /* a load's own buffers (lines, parsers, task records in flight) are freed when it ends
     * but stay in the arena: measured on the 10 M-task log, a one-stage load (26 MiB model)
     * left RSS at 153 MiB, and the next one at 284 MiB; handing them back after every load
     * costs one walk of the (two) arenas */
    if (before - after >= TRIM_BYTES) trim_if(c, before, after);
    else trim(c, "load done");
    return rc == CLARITY_OK ? m : NULL;
}

void clarity__serve_cache_release(struct serve_cache *c, struct serve_model *m)
{
    if (!m) return;
    pthread_mutex_lock(&c->mu);
    size_t before = c->bytes;
    m->refs--;
    if (!m->refs && m->stale) {
        unlink_model(c, m);
        model_free(m);
    } else {
        evict(c, NULL);
    }
    size_t after = c->bytes;
    pthread_mutex_unlock(&c->mu);
    trim_if(c, before, after);
}
