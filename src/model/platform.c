/* Which platform an application ran on and where its data lived, from the log's own
 * evidence only: environment properties, SQL plans and RDD names. Anything the log does not
 * say stays unknown; nothing is guessed from file names or defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "clarity/model.h"

const char *clarity_scheme_name(int s)
{
    static const char *const n[CLARITY_SCHEME_COUNT] = {"file", "hdfs", "s3", "gs", "abfs", "wasb", "dbfs",
                                                        "oss", "other"};
    return s >= 0 && s < CLARITY_SCHEME_COUNT ? n[s] : "none";
}

bool clarity_scheme_is_object_store(int s)
{
    return s == CLARITY_SCHEME_S3 || s == CLARITY_SCHEME_GS || s == CLARITY_SCHEME_ABFS ||
           s == CLARITY_SCHEME_WASB || s == CLARITY_SCHEME_DBFS || s == CLARITY_SCHEME_OSS;
}

const char *clarity_cluster_manager_name(int m)
{
    static const char *const n[] = {"unknown", "local", "standalone", "YARN", "Kubernetes", "Mesos"};
    return m >= 0 && (size_t)m < sizeof n / sizeof *n ? n[m] : "unknown";
}

const char *clarity_vendor_name(int v)
{
    static const char *const n[] = {"", "Databricks", "EMR", "Dataproc"};
    return v >= 0 && (size_t)v < sizeof n / sizeof *n ? n[v] : "";
}

const char *clarity_store_name(int s)
{
    static const char *const n[] = {"unknown", "host", "object_store", "mixed"};
    return s >= 0 && (size_t)s < sizeof n / sizeof *n ? n[s] : "unknown";
}

const char *clarity_photon_metric_name(int m)
{
    static const char *const n[CLARITY_PH_COUNT] = {
        "scan_io_wait_ns", "scan_cloud_storage_bytes", "scan_cache_hit_bytes", "shuffle_write_bytes",
        "shuffle_write_ns", "shuffle_remote_read_bytes", "shuffle_local_read_bytes", "fetch_wait_ms",
        "spill_bytes"};
    return m >= 0 && m < CLARITY_PH_COUNT ? n[m] : "?";
}

int clarity_scheme_of(const char *p, size_t n)
{
    static const struct { const char *prefix; int s; } t[] = {
        {"s3://", CLARITY_SCHEME_S3},     {"s3a://", CLARITY_SCHEME_S3},    {"s3n://", CLARITY_SCHEME_S3},
        {"gs://", CLARITY_SCHEME_GS},     {"abfs://", CLARITY_SCHEME_ABFS}, {"abfss://", CLARITY_SCHEME_ABFS},
        {"wasb://", CLARITY_SCHEME_WASB}, {"wasbs://", CLARITY_SCHEME_WASB}, {"dbfs:", CLARITY_SCHEME_DBFS},
        {"oss://", CLARITY_SCHEME_OSS},   {"hdfs://", CLARITY_SCHEME_HDFS}, {"file:", CLARITY_SCHEME_FILE},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        size_t l = strlen(t[i].prefix);
        if (n >= l && !strncasecmp(p, t[i].prefix, l)) return t[i].s;
    }
    /* another scheme: letters, digits, + - . then "://" */
    size_t k = 0;
    while (k < n && k < 16 && (p[k] >= 'a' && p[k] <= 'z')) k++;
    if (k > 0 && k + 3 <= n && !memcmp(p + k, "://", 3)) return CLARITY_SCHEME_OTHER;
    return -1;
}

static const char *prop(const struct clarity_app *a, const struct clarity_kvs *kv, const char *key)
{
    for (size_t i = 0; i < kv->n; i++)
        if (!strcmp(clarity_app_str(a, kv->p[i].k), key)) return clarity_app_str(a, kv->p[i].v);
    return NULL;
}

static bool any_key_prefix(const struct clarity_app *a, const struct clarity_kvs *kv, const char *pre,
                           const char **key)
{
    size_t l = strlen(pre);
    for (size_t i = 0; i < kv->n; i++)
        if (!strncmp(clarity_app_str(a, kv->p[i].k), pre, l)) {
            *key = clarity_app_str(a, kv->p[i].k);
            return true;
        }
    return false;
}

/* a classpath entry (the key of a "Classpath Entries" pair) containing s */
static const char *classpath_with(const struct clarity_app *a, const char *s)
{
    for (size_t i = 0; i < a->classpath.n; i++) {
        const char *k = clarity_app_str(a, a->classpath.p[i].k);
        if (strstr(k, s)) return k;
    }
    return NULL;
}

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

static void detect_manager(const struct clarity_app *a, struct clarity_platform *p)
{
    const char *m = prop(a, &a->spark_props, "spark.master"), *key;
    if (m) {
        if (!strncmp(m, "local", 5)) p->manager = CLARITY_CM_LOCAL;
        else if (!strncmp(m, "yarn", 4)) p->manager = CLARITY_CM_YARN;
        else if (!strncmp(m, "k8s://", 6)) p->manager = CLARITY_CM_KUBERNETES;
        else if (!strncmp(m, "mesos://", 8)) p->manager = CLARITY_CM_MESOS;
        else if (!strncmp(m, "spark://", 8)) p->manager = CLARITY_CM_STANDALONE;
        if (p->manager != CLARITY_CM_UNKNOWN) {
            snprintf(p->manager_evidence, sizeof p->manager_evidence, "spark.master=%.40s", m);
            return;
        }
    }
    /* without spark.master, Spark's own per-manager properties (not Hadoop's yarn.*, which
     * every Hadoop client configuration carries) */
    if (any_key_prefix(a, &a->spark_props, "spark.kubernetes.", &key)) p->manager = CLARITY_CM_KUBERNETES;
    else if (any_key_prefix(a, &a->spark_props, "spark.yarn.app.", &key)) p->manager = CLARITY_CM_YARN;
    else return;
    snprintf(p->manager_evidence, sizeof p->manager_evidence, "%.60s", key);
}

/* "13.3.x-aarch64-photon-scala2.12": release 13.3, arch aarch64, Photon */
static void databricks(const struct clarity_app *a, struct clarity_platform *p)
{
    const char *v = prop(a, &a->spark_props, "spark.databricks.clusterUsageTags.sparkVersion"), *key = NULL;
    if (v) {
        p->vendor = CLARITY_VENDOR_DATABRICKS;
        snprintf(p->evidence, sizeof p->evidence, "spark.databricks.clusterUsageTags.sparkVersion=%.40s", v);
        size_t n = strspn(v, "0123456789.");
        while (n > 0 && v[n - 1] == '.') n--;   /* "13.3." of "13.3.x" */
        if (n) copy(p->runtime, sizeof p->runtime, v, n);
        if (strstr(v, "aarch64")) copy(p->arch, sizeof p->arch, "aarch64", 7);
        if (strstr(v, "photon")) p->photon = true;
    } else if (any_key_prefix(a, &a->spark_props, "spark.databricks.", &key)) {
        p->vendor = CLARITY_VENDOR_DATABRICKS;
        snprintf(p->evidence, sizeof p->evidence, "%.90s", key);
    } else return;
    const char *e = prop(a, &a->spark_props, "spark.databricks.clusterUsageTags.runtimeEngine");
    if (e && !strcasecmp(e, "PHOTON")) p->photon = true;
    const char *c = prop(a, &a->spark_props, "spark.databricks.clusterUsageTags.cloudProvider");
    if (c) copy(p->cloud, sizeof p->cloud, c, strlen(c));
}

/* Dataproc: its own spark.dataproc.* properties; the image version only appears in the name
 * of Dataproc's metrics-listener jar on the classpath ("...-dataproc-2.2-1.12.0.jar") */
static void dataproc(const struct clarity_app *a, struct clarity_platform *p)
{
    const char *key;
    if (!any_key_prefix(a, &a->spark_props, "spark.dataproc.", &key)) return;
    p->vendor = CLARITY_VENDOR_DATAPROC;
    snprintf(p->evidence, sizeof p->evidence, "%.90s", key);
    copy(p->cloud, sizeof p->cloud, "GCP", 3);
    const char *jar = classpath_with(a, "metrics-listener-dataproc-");
    if (jar) {
        const char *v = strstr(jar, "metrics-listener-dataproc-") + 26;
        size_t n = strspn(v, "0123456789.");
        if (n && n < 8 && v[n] == '-' && v[n - 1] != '.') copy(p->runtime, sizeof p->runtime, v, n);
    }
}

/* EMR: its own spark.emr.* properties, or EMRFS (com.amazon.ws.emr) serving s3:// */
static void emr(const struct clarity_app *a, struct clarity_platform *p)
{
    const char *key = NULL, *fs = prop(a, &a->hadoop_props, "fs.s3.impl");
    if (any_key_prefix(a, &a->spark_props, "spark.emr.", &key))
        snprintf(p->evidence, sizeof p->evidence, "%.90s", key);
    else if (fs && strstr(fs, "com.amazon.ws.emr"))
        snprintf(p->evidence, sizeof p->evidence, "fs.s3.impl=%.70s", fs);
    else if ((key = classpath_with(a, "/usr/share/aws/emr/")))
        snprintf(p->evidence, sizeof p->evidence, "classpath /usr/share/aws/emr/");
    else return;
    p->vendor = CLARITY_VENDOR_EMR;
    copy(p->cloud, sizeof p->cloud, "AWS", 3);
}

static void count(uint32_t *c, int s)
{
    if (s >= 0 && s < CLARITY_SCHEME_COUNT) c[s]++;
}

/* "Location: InMemoryFileIndex [gs://a, gs://b]" (any index class): every path listed */
static void scan_locations(const char *plan, uint32_t *in)
{
    for (const char *q = strstr(plan, "Location: "); q; q = strstr(q, "Location: ")) {
        q += 10;
        const char *open = strchr(q, '['), *nl = strchr(q, '\n');
        if (!open || (nl && nl < open)) continue;
        const char *e = strchr(open, ']');
        if (!e || (nl && nl < e)) e = nl ? nl : open + strlen(open);
        for (const char *s = open + 1; s < e;) {
            while (s < e && (*s == ' ' || *s == ',')) s++;
            const char *t = s;
            while (t < e && *t != ',') t++;
            if (t > s) count(in, clarity_scheme_of(s, (size_t)(t - s)));
            s = t;
        }
        q = e;
    }
}

/* The path a file write goes to: "InsertIntoHadoopFsRelationCommand gs://b/out, false, ..."
 * (simple plans), or its node's "Arguments: gs://b/out, false, ..." line (formatted plans,
 * Spark 3+: "(3) Execute InsertIntoHadoopFsRelationCommand" then Input and Arguments lines).
 * The tree line "InsertIntoHadoopFsRelationCommand (3)" names no path and is not counted. */
static void scan_writes(const char *plan, uint32_t *out)
{
    static const char cmd[] = "InsertIntoHadoopFsRelationCommand";
    for (const char *q = strstr(plan, cmd); q; q = strstr(q, cmd)) {
        q += sizeof cmd - 1;
        if (*q == ' ') {
            q++;
            count(out, clarity_scheme_of(q, strcspn(q, ", \n")));
        } else if (*q == '\n') {
            const char *end = strstr(q, "\n\n"), *arg = strstr(q, "Arguments: ");
            if (arg && (!end || arg < end)) {
                arg += 11;
                count(out, clarity_scheme_of(arg, strcspn(arg, ", \n")));
            }
        }
    }
}

static int top_scheme(const uint32_t *c)
{
    int best = -1;
    for (int s = 0; s < CLARITY_SCHEME_COUNT; s++)
        if (c[s] && (best < 0 || c[s] > c[best])) best = s;
    return best;
}

static int store_of(const uint32_t *c)
{
    uint32_t obj = 0, host = 0;
    for (int s = 0; s < CLARITY_SCHEME_COUNT; s++) {
        if (clarity_scheme_is_object_store(s)) obj += c[s];
        else if (s == CLARITY_SCHEME_FILE || s == CLARITY_SCHEME_HDFS) host += c[s];
    }
    if (obj && host) return CLARITY_STORE_MIXED;
    return obj ? CLARITY_STORE_OBJECT : host ? CLARITY_STORE_HOST : CLARITY_STORE_UNKNOWN;
}

/* Which Photon metric a SQL plan metric is, by its node and name; -1 for none. */
static int photon_metric(const char *node, const char *name)
{
    if (strncmp(node, "Photon", 6)) return -1;
    if (!strncmp(node, "PhotonScan", 10)) {
        if (!strcmp(name, "executor time IO wait")) return CLARITY_PH_SCAN_IO_WAIT_NS;
        if (!strcmp(name, "cloud storage response size")) return CLARITY_PH_SCAN_CLOUD_BYTES;
        if (!strcmp(name, "cache hits size")) return CLARITY_PH_SCAN_CACHE_HIT_BYTES;
    }
    if (!strcmp(node, "PhotonShuffleExchangeSink")) {
        if (!strcmp(name, "num bytes written")) return CLARITY_PH_SHUFFLE_WRITE_BYTES;
        if (!strcmp(name, "total time spent producing shuffle files")) return CLARITY_PH_SHUFFLE_WRITE_NS;
    }
    if (!strcmp(node, "PhotonShuffleExchangeSource")) {
        if (!strcmp(name, "remote bytes read")) return CLARITY_PH_SHUFFLE_REMOTE_BYTES;
        if (!strcmp(name, "local bytes read")) return CLARITY_PH_SHUFFLE_LOCAL_BYTES;
        if (!strcmp(name, "fetch wait time")) return CLARITY_PH_FETCH_WAIT_MS;
    }
    /* spill: the compressed bytes each operator wrote to disk under memory pressure */
    if (!strcmp(name, "num bytes spilled to disk due to memory pressure") ||
        !strcmp(name, "num bytes spilled from left side") || !strcmp(name, "num bytes spilled from right side"))
        return CLARITY_PH_SPILL_BYTES;
    return -1;
}

/* Each accumulator's final value is the largest a stage reported (values are cumulative, so
 * a metric updated in several stages must not be summed over them); then summed per kind. */
static void photon_totals(const struct clarity_app *a, struct clarity_platform *p)
{
    struct clarity_idmap kind = {0}, best = {0};
    int64_t *vals = NULL;
    size_t nv = 0;
    bool any_photon_node = false;
    for (size_t i = 0; i < a->nsqls; i++)
        for (size_t m = 0; m < a->sqls[i].nmetrics; m++) {
            const struct clarity_sql_metric *x = &a->sqls[i].metrics[m];
            const char *node = clarity_app_str(a, x->node);
            if (!strncmp(node, "Photon", 6)) any_photon_node = true;
            int k = photon_metric(node, clarity_app_str(a, x->name));
            uint32_t had;
            if (k < 0 || x->accum_id < 0 || clarity_idmap_get(&kind, x->accum_id, &had)) continue;
            if (clarity_idmap_put(&kind, x->accum_id, (uint32_t)k)) goto done;
            p->photon_has[k] = true;
        }
    if (any_photon_node) p->photon = true;
    if (!any_photon_node) goto done;
    vals = malloc((a->stage_accums.n ? a->stage_accums.n : 1) * sizeof *vals);
    if (!vals) goto done;
    for (size_t i = 0; i < a->stage_accums.n; i++) {
        const struct clarity_accum *x = &a->stage_accums.p[i];
        uint32_t k, slot;
        if (!clarity_idmap_get(&kind, x->id, &k)) continue;
        if (clarity_idmap_get(&best, x->id, &slot)) {
            if (x->value > vals[slot]) vals[slot] = x->value;
        } else {
            if (clarity_idmap_put(&best, x->id, (uint32_t)nv)) goto done;
            vals[nv++] = x->value;
        }
    }
    for (size_t i = 0; i < a->stage_accums.n; i++) {
        const struct clarity_accum *x = &a->stage_accums.p[i];
        uint32_t k, slot;
        if (!clarity_idmap_get(&kind, x->id, &k) || !clarity_idmap_get(&best, x->id, &slot)) continue;
        if (vals[slot] == INT64_MIN) continue;   /* counted already */
        p->photon_v[k] += vals[slot] > 0 ? vals[slot] : 0;
        vals[slot] = INT64_MIN;
    }
done:
    free(vals);
    clarity_idmap_free(&kind);
    clarity_idmap_free(&best);
}

void clarity_platform_detect(const struct clarity_app *a, struct clarity_platform *p)
{
    memset(p, 0, sizeof *p);
    p->default_fs = p->input_scheme = p->output_scheme = -1;
    detect_manager(a, p);
    databricks(a, p);
    if (p->vendor == CLARITY_VENDOR_NONE) dataproc(a, p);
    if (p->vendor == CLARITY_VENDOR_NONE) emr(a, p);
    const char *fs = prop(a, &a->hadoop_props, "fs.defaultFS");
    if (!fs) fs = prop(a, &a->spark_props, "spark.hadoop.fs.defaultFS");
    if (fs) p->default_fs = clarity_scheme_of(fs, strlen(fs));
    for (size_t i = 0; i < a->nsqls; i++) {
        const char *plan = clarity_app_str(a, a->sqls[i].plan);
        scan_locations(plan, p->input);
        scan_writes(plan, p->output);
    }
    /* RDD-API input: a HadoopRDD is named after the path it reads; a bare absolute path is on
     * the default file system, when the log says which */
    for (size_t i = 0; i < a->nrdds; i++) {
        const char *n = clarity_app_str(a, a->rdds[i].name);
        int s = clarity_scheme_of(n, strlen(n));
        if (s < 0 && n[0] == '/' && n[1] && n[1] != '/') s = p->default_fs;
        if (s >= 0 && s != CLARITY_SCHEME_OTHER) count(p->input, s);
    }
    p->input_scheme = top_scheme(p->input);
    p->output_scheme = top_scheme(p->output);
    p->input_store = store_of(p->input);
    p->output_store = store_of(p->output);
    photon_totals(a, p);
}
