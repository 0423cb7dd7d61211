/* The models of recently asked applications, as SHS keeps retainedApplications: bounded by
 * count and by bytes, the least recently used dropped first. A model in use by a request is
 * never freed under it (reference counts); a model of an older generation of its log (the log
 * grew or changed) is marked stale and freed once its last request ends. Two requests for the
 * same log wait for one load instead of loading twice. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "serve/serve_internal.h"

/* Freeing a large model leaves its pages in the allocator's arenas: each request thread
 * allocates from its own arena, so a model freed by one thread is not reused by the next
 * load on another, and RSS grew to 2.3 GB over two loads of a 1.2 GB model under a 512 MiB
 * bound (10 M tasks). Past this many bytes freed, the free pages go back to the system
 * (glibc's malloc_trim, outside the cache's lock: it walks every arena). */
#define TRIM_BYTES ((size_t)64 << 20)

static void trim_if(size_t before, size_t after)
{
    if (before > after && before - after >= TRIM_BYTES) malloc_trim(0);
}

void clarity__serve_cache_init(struct serve_cache *c, size_t max_apps, size_t max_bytes)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->max_apps = max_apps;
    c->max_bytes = max_bytes;
}

static void model_free(struct serve_model *m)
{
    if (m->app) clarity_app_free(m->app);
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

/* Frees unused models, oldest use first, while the cache is over its bounds; keep is spared. */
static void evict(struct serve_cache *c, const struct serve_model *keep)
{
    while (c->n > c->max_apps || c->bytes > c->max_bytes) {
        struct serve_model *victim = NULL;
        for (struct serve_model *m = c->head; m; m = m->next)
            if (m != keep && !m->refs && !m->loading && (!victim || m->used < victim->used)) victim = m;
        if (!victim) return;
        unlink_model(c, victim);
        c->evictions++;
        model_free(victim);
    }
}

/* A model loaded with SQL plan graphs answers every route; one without them answers all but
 * /sql. Graphs cost load time (the SQL listener's replay runs on one thread), so they are loaded
 * only for a /sql request, as a second model of the same log. */
static struct serve_model *find(struct serve_cache *c, const struct serve_entry *e, bool need_sql)
{
    for (struct serve_model *m = c->head; m; m = m->next)
        if (!m->stale && (m->sql || !need_sql) && !strcmp(m->path, e->path)) return m;
    return NULL;
}

static int load(const struct serve_entry *e, const struct clarity_load_options *lo, struct clarity_app **out,
                struct clarity_error *err)
{
    struct clarity_source_list list = {0};
    const char *paths[] = {e->path};
    int rc = clarity_source_resolve(paths, 1, &list, err);
    if (rc == CLARITY_OK && list.napps != 1)
        rc = clarity_error_set(err, CLARITY_EFORMAT, e->path, 0, 0, "no longer one application");
    if (rc == CLARITY_OK) rc = clarity_app_load(&list.apps[0], lo, out, err);
    clarity_source_list_free(&list);
    return rc;
}

struct serve_model *clarity__serve_cache_get(struct serve_cache *c, const struct serve_entry *e,
                                             const struct clarity_load_options *lo, struct clarity_error *err)
{
    pthread_mutex_lock(&c->mu);
    struct serve_model *m;
    for (;;) {
        m = find(c, e, lo->sql_plan_graphs);
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
    m->sql = lo->sql_plan_graphs;
    m->loading = true;
    m->refs = 1;
    m->next = c->head;
    c->head = m;
    c->n++;
    c->loads++;
    pthread_mutex_unlock(&c->mu);

    /* outside the lock: a slow log holds up only the requests that need it */
    struct clarity_app *app = NULL;
    int rc = load(e, lo, &app, &m->err);

    pthread_mutex_lock(&c->mu);
    m->loading = false;
    m->used = ++c->tick;
    if (rc == CLARITY_OK) {
        m->app = app;
        m->bytes = model_bytes(app);
        c->bytes += m->bytes;
    } else {
        m->refs--;
        *err = m->err;
    }
    size_t before = c->bytes;
    evict(c, m);
    size_t after = c->bytes;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    trim_if(before, after);
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
    trim_if(before, after);
}
