/* The hardware profile of a what-if: what the log says (executors, cores, hosts), defaults
 * for what it cannot say (disks, their throughput, the network), and user values. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "clarity/whatif.h"
#include "util/ini.h"
#include "util/units.h"

static const char *const field_names[CLARITY_HW_NFIELDS] = {
    "hosts", "executors", "cores_per_host", "disks_per_host", "disk_mb_s", "network_gbps", "input_on_disk",
    "output_replication",
};

const char *clarity_hw_field_name(enum clarity_hw_field f)
{
    return (unsigned)f < CLARITY_HW_NFIELDS ? field_names[f] : "?";
}

const char *clarity_hw_source_name(enum clarity_hw_source s)
{
    static const char *const n[] = {"default", "log", "observed", "ini", "flag"};
    return (unsigned)s < sizeof n / sizeof *n ? n[s] : "?";
}

static const char *prop(const struct clarity_kvs *kv, const struct clarity_app *a, const char *key)
{
    for (size_t i = 0; i < kv->n; i++)
        if (!strcmp(clarity_app_str(a, kv->p[i].k), key)) return clarity_app_str(a, kv->p[i].v);
    return NULL;
}

struct ev { int64_t t; int64_t cores, execs; };

static int ev_cmp(const void *pa, const void *pb)
{
    const struct ev *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->cores > b->cores) - (a->cores < b->cores);   /* removals first */
}

/* Most executors and cores alive at once, over executors (drivers == false) or the driver. */
static void peak_alive(const struct clarity_app *a, bool drivers, int64_t *cores, int64_t *execs)
{
    *cores = *execs = 0;
    struct ev *e = malloc((2 * a->nexecs + 1) * sizeof *e);
    if (!e) return;
    size_t m = 0;
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *x = &a->execs[i];
        if (x->is_driver != drivers || x->total_cores <= 0) continue;
        e[m++] = (struct ev){x->add_ms, x->total_cores, 1};
        if (x->remove_ms) e[m++] = (struct ev){x->remove_ms, -x->total_cores, -1};
    }
    qsort(e, m, sizeof *e, ev_cmp);
    int64_t c = 0, n = 0;
    for (size_t i = 0; i < m; i++) {
        c += e[i].cores;
        n += e[i].execs;
        if (c > *cores) *cores = c;
        if (n > *execs) *execs = n;
    }
    free(e);
}

/* Executor hosts (or the driver's), each once: one pass through a hash of host ids. */
static size_t distinct_hosts(const struct clarity_app *a, bool drivers)
{
    struct clarity_idmap seen = {0};
    size_t n = 0;
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *x = &a->execs[i];
        uint32_t one;
        if (x->is_driver != drivers || x->total_cores <= 0 || clarity_idmap_get(&seen, x->host, &one)) continue;
        if (clarity_idmap_put(&seen, x->host, 1)) break;   /* out of memory: the hosts counted so far */
        n++;
    }
    clarity_idmap_free(&seen);
    return n;
}

void clarity_hw_from_log(const struct clarity_app *a, struct clarity_hw *out)
{
    memset(out, 0, sizeof *out);
    out->task_cpus = clarity_sim_task_cpus(a);
    int64_t cores, execs;
    size_t hosts;
    peak_alive(a, false, &cores, &execs);
    hosts = distinct_hosts(a, false);
    if (cores <= 0) {   /* local mode: the driver runs the tasks */
        peak_alive(a, true, &cores, &execs);
        hosts = distinct_hosts(a, true);
    }
    bool any_input = false;
    enum clarity_hw_source csrc = CLARITY_HWS_LOG;
    if (cores <= 0) {
        /* no executor cores logged (Spark 1.x local mode): the concurrency the tasks reached */
        size_t n = 0;
        struct clarity_sim_task *t = malloc((a->tasks.n ? a->tasks.n : 1) * sizeof *t);
        struct clarity_idmap seen = {0};
        hosts = 0;
        for (size_t i = 0; t && i < a->tasks.n; i++) {
            if (clarity_icol_get(&a->tasks.end, i) != CLARITY_END_SUCCESS) continue;
            t[n++] = (struct clarity_sim_task){clarity_task_launch_ms(a, i), clarity_task_finish_ms(a, i), 0, 0};
            uint32_t host = (uint32_t)clarity_icol_get(&a->tasks.host, i), one;
            /* at most 4096 hosts are counted, as always */
            if (hosts < 4096 && !clarity_idmap_get(&seen, host, &one) && clarity_idmap_put(&seen, host, 1) == 0) hosts++;
        }
        cores = n ? (int64_t)clarity_sim_peak_slots(t, n) * out->task_cpus : 1;
        execs = (int64_t)(hosts ? hosts : 1);
        free(t);
        clarity_idmap_free(&seen);
        csrc = CLARITY_HWS_OBSERVED;
    }
    for (size_t i = 0; i < a->tasks.n && !any_input; i++)
        any_input = clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS &&
                    clarity_task_metric(a, i, CLARITY_TM_INPUT_BYTES) > 0;
    if (hosts == 0) hosts = 1;
    if (execs <= 0) execs = 1;
    out->v[CLARITY_HW_HOSTS] = (double)hosts;
    out->v[CLARITY_HW_EXECUTORS] = (double)execs;
    out->v[CLARITY_HW_CORES_PER_HOST] = (double)cores / (double)hosts;
    out->src[CLARITY_HW_HOSTS] = out->src[CLARITY_HW_EXECUTORS] = out->src[CLARITY_HW_CORES_PER_HOST] = csrc;
    out->v[CLARITY_HW_DISKS_PER_HOST] = 1;
    out->v[CLARITY_HW_DISK_MB_S] = CLARITY_HW_DEFAULT_DISK_MB_S;
    out->v[CLARITY_HW_NET_GBPS] = CLARITY_HW_DEFAULT_NET_GBPS;
    /* Whether input came from disk or a cache is unknowable in 2.x+ logs: default to disk
     * whenever the input metrics show input (--input-on-disk overrides it). */
    out->v[CLARITY_HW_INPUT_ON_DISK] = any_input;
    out->src[CLARITY_HW_INPUT_ON_DISK] = CLARITY_HWS_LOG;
    /* ...unless the scans' paths name an object store: then the input came over the network
     * from a remote service, and faster disks cannot speed it up */
    const struct clarity_platform *p = &a->platform;
    if (p->input_store == CLARITY_STORE_OBJECT) {
        out->v[CLARITY_HW_INPUT_ON_DISK] = 0;
        out->input_remote = any_input;
        snprintf(out->input_scheme, sizeof out->input_scheme, "%s%s", clarity_scheme_name(p->input_scheme),
                 p->input_scheme == CLARITY_SCHEME_DBFS ? ":" : "://");
    }
    if (p->output_store == CLARITY_STORE_OBJECT) {
        out->output_remote = true;
        snprintf(out->output_scheme, sizeof out->output_scheme, "%s%s", clarity_scheme_name(p->output_scheme),
                 p->output_scheme == CLARITY_SCHEME_DBFS ? ":" : "://");
    }
    const char *rep = prop(&a->hadoop_props, a, "dfs.replication");
    if (!rep) rep = prop(&a->spark_props, a, "spark.hadoop.dfs.replication");
    long r = rep ? strtol(rep, NULL, 10) : 0;
    out->v[CLARITY_HW_REPLICATION] = r >= 1 && r <= 64 ? (double)r : 1;
    out->src[CLARITY_HW_REPLICATION] = r >= 1 && r <= 64 ? CLARITY_HWS_LOG : CLARITY_HWS_DEFAULT;
}

/* An absolute network or disk speed with a unit, in the field's unit (Gbps, MB/s); false when
 * the unit is not one. Network counts bits: "10Gbps", "100Mb/s", "10G" (a prefix alone: bits
 * per second), and bytes with B: "1.25GB/s". Disk counts bytes: "200MB/s", "1.5G/s",
 * "150MiB/s", "200M", and "200MBps" or "200mbps" as the flag's name spells it. The prefixes
 * are util/units.h's: decimal k, M, G, T, binary Ki, Mi, Gi, Ti. */
static bool speed_unit(enum clarity_hw_field f, double v, const char *u, double *out)
{
    const char *rest;
    double per_s = v * clarity_unit_prefix(u, &rest);   /* per second, in bits or bytes */
    bool prefix = rest != u;
    if (f == CLARITY_HW_NET_GBPS) {
        bool bits = !strcasecmp(rest, "bps") || !strcmp(rest, "b/s") || (!*rest && prefix);
        bool bytes = !strcmp(rest, "B/s");
        if (!bits && !bytes) return false;
        *out = per_s * (bytes ? 8 : 1) / 1e9;
        return true;
    }
    if (f == CLARITY_HW_DISK_MB_S) {
        if (strcasecmp(rest, "bps") && strcasecmp(rest, "b/s") && strcasecmp(rest, "b") && strcmp(rest, "/s") &&
            !(!*rest && prefix))
            return false;
        *out = per_s / 1e6;
        return true;
    }
    return false;
}

int clarity_hw_parse_value(enum clarity_hw_field f, const char *s, struct clarity_hw_value *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    while (isspace((unsigned char)*s)) s++;
    char buf[64];
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n == 0 || n >= sizeof buf) goto bad;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (f == CLARITY_HW_INPUT_ON_DISK) {
        if (!strcasecmp(buf, "yes") || !strcasecmp(buf, "true") || !strcmp(buf, "1")) out->v = 1;
        else if (!strcasecmp(buf, "no") || !strcasecmp(buf, "false") || !strcmp(buf, "0")) out->v = 0;
        else goto bad;
        out->set = true;
        return 0;
    }
    char *p = buf;
    if (*p == 'x' || *p == 'X') { out->relative = true; p++; }
    else if (n > 1 && (buf[n - 1] == 'x' || buf[n - 1] == 'X')) { out->relative = true; buf[--n] = 0; }
    char *end;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v) || v <= 0) goto bad;
    if (*end && (out->relative || !speed_unit(f, v, end, &v))) goto bad;
    if (!isfinite(v) || v <= 0) goto bad;
    out->v = v;
    out->set = true;
    return 0;
bad:
    return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "%s: '%s' is not a positive number%s", clarity_hw_field_name(f), s,
                             f == CLARITY_HW_NET_GBPS    ? " (e.g. 10Gbps, 100Mbps, 1.25GB/s, x10)"
                             : f == CLARITY_HW_DISK_MB_S ? " (e.g. 200MB/s, 1.5GB/s, 150MiB/s, x2)"
                                                         : " (or a factor like x2)");
}

bool clarity_hw_change_any(const struct clarity_hw_change *c)
{
    for (int i = 0; i < CLARITY_HW_NFIELDS; i++) if (c->f[i].set) return true;
    return false;
}

void clarity_hw_apply(const struct clarity_hw *base, const struct clarity_hw_change *c, enum clarity_hw_source src,
                      struct clarity_hw *out)
{
    struct clarity_hw h = *base;
    for (int i = 0; i < CLARITY_HW_NFIELDS; i++) {
        const struct clarity_hw_value *x = &c->f[i];
        if (!x->set) continue;
        h.v[i] = x->relative ? base->v[i] * x->v : x->v;
        h.src[i] = src;
    }
    /* more machines bring their executors: keep executors per host unless given */
    if (c->f[CLARITY_HW_HOSTS].set && !c->f[CLARITY_HW_EXECUTORS].set && base->v[CLARITY_HW_HOSTS] > 0) {
        h.v[CLARITY_HW_EXECUTORS] = base->v[CLARITY_HW_EXECUTORS] * h.v[CLARITY_HW_HOSTS] / base->v[CLARITY_HW_HOSTS];
        h.src[CLARITY_HW_EXECUTORS] = src;
    }
    *out = h;
}

struct profile_ctx { struct clarity_hw_change *cluster, *whatif, *sec; };

static int profile_line(void *ctx, const char *section, const char *key, const char *val, struct clarity_error *err)
{
    struct profile_ctx *x = ctx;
    if (!key) {
        if (!strcmp(section, "cluster")) x->sec = x->cluster;
        else if (!strcmp(section, "whatif")) x->sec = x->whatif;
        else return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "unknown section [%s] (cluster or whatif)", section);
        return 0;
    }
    if (!x->sec) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "key before a [cluster] or [whatif] section");
    int fld = -1;
    for (int i = 0; i < CLARITY_HW_NFIELDS; i++) if (!strcmp(key, field_names[i])) fld = i;
    if (fld < 0) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "unknown key '%s'", key);
    int rc = clarity_hw_parse_value((enum clarity_hw_field)fld, val, &x->sec->f[fld], err);
    if (rc) return rc;
    if (x->sec == x->cluster && x->sec->f[fld].relative)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                 "[cluster] describes the hardware the log ran on: give %s absolutely", key);
    return 0;
}

int clarity_hw_ini_load(const char *path, struct clarity_hw_change *cluster, struct clarity_hw_change *whatif,
                        struct clarity_error *err)
{
    struct profile_ctx x = {cluster, whatif, NULL};
    return clarity_ini_read(path, CLARITY_INI_INLINE_COMMENTS, profile_line, &x, err);
}
