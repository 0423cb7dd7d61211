/* Scenario defaults, options by name (shared by the CLI and the INI file), fault specs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/synth.h"
#include "util/ini.h"
#include "util/units.h"

/* Each description fits 100 columns after `clarity synth --help`'s 13-column indent. */
static const struct synth_scenario_info scenarios[] = {
    {"wordcount", "HiBench WordCount: scan text, count words (map-side combine), save; CPU and disk"},
    {"sort", "HiBench Sort: read, shuffle everything, write; disk and network bound"},
    {"kmeans", "DenseKMeans: cache the points, then one job per iteration on the cache; CPU bound"},
    {"pagerank", "SparkPageRank: shuffle-heavy iterations on grouped links; GC heavy, skipped stages"},
    {"tpcds-mix", "TPC-DS-like SQL queries arriving over time, several at once; joins, FAIR pools"},
};

const struct synth_scenario_info *clarity_synth_scenarios(size_t *n)
{
    *n = sizeof scenarios / sizeof *scenarios;
    return scenarios;
}

const char *clarity_synth_fault_kind_name(int kind)
{
    static const char *const names[] = {"cpu-hog", "memory-hog", "disk-hog", "network"};
    return kind >= 0 && kind < 4 ? names[kind] : "?";
}

#define GiB (1024.0 * 1024.0 * 1024.0)
#define MiB (1024.0 * 1024.0)

int clarity_synth_config_init(struct synth_config *c, const char *scenario, struct clarity_error *err)
{
    size_t n, i;
    const struct synth_scenario_info *sc = clarity_synth_scenarios(&n);
    for (i = 0; i < n && strcmp(sc[i].name, scenario); i++) {}
    if (i == n) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "unknown scenario '%s' (clarity synth --list)", scenario);
    *c = (struct synth_config){0};
    snprintf(c->scenario, sizeof c->scenario, "%s", scenario);
    snprintf(c->app_name, sizeof c->app_name, "%s", scenario);
    c->seed = 1;
    c->start_ms = 1709283600000;   /* 2024-03-01 09:00:00 UTC */
    c->hosts = 4;
    c->cores = 8;
    c->disks = 2;
    c->host_memory = 64 * GiB;
    c->disk_bw = 150 * MiB;
    c->nic_bw = 1250e6;            /* 10 GbE */
    c->executors_per_host = 1;
    c->executor_cores = 0;         /* = cores / executors_per_host */
    c->executor_heap = 0;          /* derived from host memory */
    c->locality_wait_s = 3;
    c->dyn_min = 1;
    c->dyn_max = 0;                /* = hosts * executors_per_host */
    c->spec_multiplier = 1.5;
    c->spec_quantile = 0.75;
    c->split_bytes = 128 * MiB;
    c->skew = 0.2;
    c->arrival_s = 15;
    c->cpu_scale = 1;
    c->gc_format = SYNTH_GC_JDK8_PARALLEL;
    c->logs = true;
    c->truth_tasks = true;
    c->bucket_s = 10;
    if (!strcmp(scenario, "wordcount")) c->data_bytes = 16 * GiB;
    else if (!strcmp(scenario, "sort")) c->data_bytes = 8 * GiB;
    else if (!strcmp(scenario, "kmeans")) {
        c->data_bytes = 4 * GiB;
        c->iterations = 5;
    } else if (!strcmp(scenario, "pagerank")) {
        c->data_bytes = 2 * GiB;
        c->iterations = 4;
        c->skew = 0.4;
    } else {
        c->data_bytes = 24 * GiB;
        c->queries = 8;
        snprintf(c->app_name, sizeof c->app_name, "TPC-DS mix");
    }
    return CLARITY_OK;
}

static int parse_int(const char *v, long lo, long hi, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi) return -1;
    *out = (int)x;
    return 0;
}

static int parse_double(const char *v, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x >= lo && x <= hi)) return -1;
    *out = x;
    return 0;
}

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcasecmp(v, "yes")) *out = true;
    else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcasecmp(v, "no")) *out = false;
    else return -1;
    return 0;
}

int clarity_synth_fault_parse(const char *spec, struct synth_fault *f, struct clarity_error *err)
{
    static const char *const kinds[] = {"cpu-hog", "memory-hog", "disk-hog", "network"};
    *f = (struct synth_fault){.start_s = 0, .end_s = -1, .intensity = 0.5};
    const char *at = strchr(spec, '@');
    int k;
    for (k = 0; k < 4; k++)
        if (at && (size_t)(at - spec) == strlen(kinds[k]) && !strncmp(spec, kinds[k], (size_t)(at - spec))) break;
    if (k == 4) goto bad;
    f->kind = k;
    const char *p = at + 1;
    if (strncmp(p, "host", 4)) goto bad;
    char *end;
    long h = strtol(p + 4, &end, 10);
    if (end == p + 4 || h < 1 || h > 10000) goto bad;
    f->host = (int)h;
    p = end;
    if (*p == ':') {
        p++;
        /* a window has a '-'; otherwise this field is the intensity */
        const char *colon = strchr(p, ':'), *dash = strchr(p, '-');
        if (dash && (!colon || dash < colon)) {
            const char *r;
            if (clarity_scan_duration(p, &r, &f->start_s, NULL) || r != dash) goto bad;
            if (clarity_scan_duration(dash + 1, &r, &f->end_s, NULL) || (*r && *r != ':') || f->end_s <= f->start_s) goto bad;
            p = r;
            if (*p == ':') p++;
        }
        if (*p && parse_double(p, 0.01, 0.99, &f->intensity)) goto bad;
    } else if (*p) goto bad;
    return CLARITY_OK;
bad:
    return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                             "bad fault '%s': want KIND@hostN[:START-END][:INTENSITY], KIND one of cpu-hog, memory-hog, "
                             "disk-hog, network, intensity between 0.01 and 0.99 (e.g. cpu-hog@host3:60s-180s:0.8)",
                             spec);
}

/* "NAME:NUMBER" with NUMBER in [lo, hi]; the name must fit a query name. */
static int parse_named(const char *v, char *name, size_t cap, double lo, double hi, double *out)
{
    const char *colon = strrchr(v, ':');
    if (!colon || colon == v || (size_t)(colon - v) >= cap || parse_double(colon + 1, lo, hi, out)) return -1;
    memcpy(name, v, (size_t)(colon - v));
    name[colon - v] = '\0';
    return 0;
}

/* query-priority: several queries, comma-separated; a later value for a query replaces it */
static int parse_priorities(struct synth_config *c, const char *v)
{
    char item[64];
    for (const char *p = v; *p;) {
        size_t k = strcspn(p, ",");
        if (k == 0 || k >= sizeof item) return -1;
        memcpy(item, p, k);
        item[k] = '\0';
        struct synth_priority x;
        if (parse_named(item, x.query, sizeof x.query, 0, 1e6, &x.value)) return -1;
        int i;
        for (i = 0; i < c->npriority && strcmp(c->priority[i].query, x.query); i++) {}
        if (i == (int)(sizeof c->priority / sizeof *c->priority)) return -1;
        c->priority[i] = x;
        if (i == c->npriority) c->npriority++;
        if (p[k] == ',' && !p[k + 1]) return -1;   /* "q42:2," lost a query */
        p += k + (p[k] == ',');
    }
    return 0;
}

/* kill-executor "ID@TIME": the executor with that id is lost TIME after the start */
static int parse_kill(struct synth_config *c, const char *v, struct clarity_error *uerr)
{
    const char *at = strchr(v, '@');
    if (!at || at == v || (size_t)(at - v) >= sizeof c->kill[0].executor || c->nkill == (int)(sizeof c->kill / sizeof *c->kill))
        return -1;
    struct synth_kill k = {0};
    memcpy(k.executor, v, (size_t)(at - v));
    for (const char *p = k.executor; *p; p++)
        if (*p < '0' || *p > '9') return -1;
    if (clarity_parse_duration(at + 1, &k.at_s, uerr) || k.at_s <= 0) return -1;
    c->kill[c->nkill++] = k;
    return 0;
}

int clarity_synth_config_set(struct synth_config *c, const char *key, const char *v, struct clarity_error *err)
{
    int bad = 0;
    double d;
    struct clarity_error uerr = {0};   /* why a size, rate or duration did not parse */
    if (!strcmp(key, "seed")) {
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        bad = end == v || *end;
        c->seed = x;
    } else if (!strcmp(key, "name")) snprintf(c->app_name, sizeof c->app_name, "%s", v);
    else if (!strcmp(key, "start-ms")) {
        char *end;
        long long x = strtoll(v, &end, 10);
        bad = end == v || *end || x < 0;
        c->start_ms = x;
    } else if (!strcmp(key, "hosts")) bad = parse_int(v, 1, 1000, &c->hosts);
    else if (!strcmp(key, "cores")) bad = parse_int(v, 1, 1024, &c->cores);
    else if (!strcmp(key, "disks")) bad = parse_int(v, 1, 64, &c->disks);
    else if (!strcmp(key, "host-memory")) bad = clarity_parse_size(v, &c->host_memory, &uerr) || c->host_memory < GiB;
    else if (!strcmp(key, "disk-bw")) bad = clarity_parse_rate(v, &c->disk_bw, &uerr) || c->disk_bw < 1024;
    else if (!strcmp(key, "nic-bw")) bad = clarity_parse_rate(v, &c->nic_bw, &uerr) || c->nic_bw < 1024;
    else if (!strcmp(key, "executors-per-host")) bad = parse_int(v, 1, 16, &c->executors_per_host);
    else if (!strcmp(key, "executor-cores")) bad = parse_int(v, 1, 1024, &c->executor_cores);
    else if (!strcmp(key, "executor-memory")) bad = clarity_parse_size(v, &c->executor_heap, &uerr) || c->executor_heap < 512 * MiB;
    else if (!strcmp(key, "pool")) {
        if (!strcmp(v, "fair")) c->fair = true;
        else if (!strcmp(v, "fifo")) c->fair = false;
        else bad = 1;
    } else if (!strcmp(key, "locality-wait")) bad = clarity_parse_duration(v, &c->locality_wait_s, &uerr);
    else if (!strcmp(key, "dynamic-allocation")) bad = parse_bool(v, &c->dynalloc);
    else if (!strcmp(key, "min-executors")) bad = parse_int(v, 0, 100000, &c->dyn_min);
    else if (!strcmp(key, "max-executors")) bad = parse_int(v, 1, 100000, &c->dyn_max);
    else if (!strcmp(key, "speculation")) bad = parse_bool(v, &c->speculation);
    else if (!strcmp(key, "speculation-multiplier")) bad = parse_double(v, 1, 100, &c->spec_multiplier);
    else if (!strcmp(key, "speculation-quantile")) bad = parse_double(v, 0.01, 1, &c->spec_quantile);
    else if (!strcmp(key, "failure-rate")) bad = parse_double(v, 0, 0.5, &c->failure_rate);
    else if (!strcmp(key, "data")) bad = clarity_parse_size(v, &c->data_bytes, &uerr) || c->data_bytes < 1;
    else if (!strcmp(key, "split")) bad = clarity_parse_size(v, &c->split_bytes, &uerr) || c->split_bytes < 1024;
    else if (!strcmp(key, "partitions")) bad = parse_int(v, 0, 10000000, &c->partitions);
    else if (!strcmp(key, "queries")) bad = parse_int(v, 1, 100000, &c->queries);
    else if (!strcmp(key, "iterations")) bad = parse_int(v, 1, 1000, &c->iterations);
    else if (!strcmp(key, "skew")) bad = parse_double(v, 0, 3, &c->skew);
    else if (!strcmp(key, "arrival")) bad = clarity_parse_duration(v, &c->arrival_s, &uerr) || c->arrival_s <= 0;
    else if (!strcmp(key, "cpu-scale")) bad = parse_double(v, 0.001, 1000, &c->cpu_scale);
    else if (!strcmp(key, "skew-key")) bad = parse_double(v, 0, 0.95, &c->skew_key);
    else if (!strcmp(key, "driver-gap")) bad = clarity_parse_duration(v, &c->driver_gap_s, &uerr) || c->driver_gap_s < 0;
    else if (!strcmp(key, "gc-pressure")) bad = parse_double(v, 1, 100, &c->gc_pressure);
    else if (!strcmp(key, "idle-executors")) bad = parse_int(v, 0, 1000, &c->idle_executors);
    else if (!strcmp(key, "kill-executor")) bad = parse_kill(c, v, &uerr);
    else if (!strcmp(key, "aggressive")) bad = snprintf(c->aggressive, sizeof c->aggressive, "%s", v) >= (int)sizeof c->aggressive;
    else if (!strcmp(key, "aggressive-scale")) bad = parse_double(v, 0.01, 1000, &c->aggressive_scale);
    else if (!strcmp(key, "omit")) bad = snprintf(c->omit, sizeof c->omit, "%s", v) >= (int)sizeof c->omit;
    else if (!strcmp(key, "query-pool"))
        bad = parse_named(v, c->pool_query, sizeof c->pool_query, 0.001, 0.999, &c->pool_share);
    else if (!strcmp(key, "query-priority")) bad = parse_priorities(c, v);
    else if (!strcmp(key, "gc-log")) {
        if (!strcmp(v, "jdk8") || !strcmp(v, "parallel")) c->gc_format = SYNTH_GC_JDK8_PARALLEL;
        else if (!strcmp(v, "unified") || !strcmp(v, "g1")) c->gc_format = SYNTH_GC_UNIFIED_G1;
        else bad = 1;
    } else if (!strcmp(key, "fault")) {
        if (c->nfaults == SYNTH_MAX_FAULTS)
            return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "at most %d faults", SYNTH_MAX_FAULTS);
        int rc = clarity_synth_fault_parse(v, &c->faults[c->nfaults], err);
        if (rc) return rc;
        c->nfaults++;
    } else if (!strcmp(key, "codec")) {
        if (!strcmp(v, "none") || !strcmp(v, "plain")) c->codec = SYNTH_CODEC_PLAIN;
        else if (!strcmp(v, "zstd")) c->codec = SYNTH_CODEC_ZSTD;
        else if (!strcmp(v, "lz4")) c->codec = SYNTH_CODEC_LZ4;
        else bad = 1;
    } else if (!strcmp(key, "logs")) bad = parse_bool(v, &c->logs);
    else if (!strcmp(key, "truth-tasks")) bad = parse_bool(v, &c->truth_tasks);
    else if (!strcmp(key, "instrument")) bad = parse_bool(v, &c->instrument);
    else if (!strcmp(key, "keyed-draws")) bad = parse_bool(v, &c->keyed_draws);
    else if (!strcmp(key, "truth-bucket")) bad = clarity_parse_duration(v, &d, &uerr) || d < 0.1 || (c->bucket_s = d, 0);
    else return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "unknown option '%s'", key);
    if (bad && uerr.msg[0]) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "bad value '%s' for %s: %s", v, key, uerr.msg);
    if (bad) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "bad value '%s' for %s", v, key);
    return CLARITY_OK;
}

struct ini_ctx { struct synth_config *c; bool have_scenario; };

static int ini_setting(void *ctx, const char *section, const char *k, const char *v, struct clarity_error *err)
{
    struct ini_ctx *x = ctx;
    (void)section;   /* sections only group the settings for the reader */
    if (!k) return CLARITY_OK;
    if (!strcmp(k, "scenario")) {
        if (x->have_scenario) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "scenario given twice");
        struct synth_config keep = *x->c;
        int rc = clarity_synth_config_init(x->c, v, err);
        if (rc) *x->c = keep;
        x->have_scenario = true;
        return rc;
    }
    if (!x->have_scenario)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "the first setting must be 'scenario = NAME'");
    return clarity_synth_config_set(x->c, k, v, err);
}

int clarity_synth_config_load_ini(struct synth_config *c, const char *path, struct clarity_error *err)
{
    struct ini_ctx x = {c, false};
    int rc = clarity_ini_read(path, 0, ini_setting, &x, err);
    if (rc == CLARITY_OK && !x.have_scenario) rc = clarity_error_set(err, CLARITY_EUSAGE, path, 0, 0, "no 'scenario = NAME' line");
    return rc;
}

int clarity_synth_config_check(const struct synth_config *c, struct clarity_error *err)
{
    int ec = c->executor_cores ? c->executor_cores : c->cores / c->executors_per_host;
    if (ec < 1 || ec * c->executors_per_host > c->cores)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "%d executors of %d cores do not fit a %d-core host",
                                 c->executors_per_host, ec, c->cores);
    for (int i = 0; i < c->nfaults; i++)
        if (c->faults[i].host > c->hosts)
            return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "fault %d is on host%d, but there are %d hosts", i + 1,
                                     c->faults[i].host, c->hosts);
    if (c->dynalloc && c->dyn_max && c->dyn_min > c->dyn_max)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "min-executors %d > max-executors %d", c->dyn_min, c->dyn_max);
    if (c->hosts + c->idle_executors > 1000)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "--hosts plus --idle-executors is over 1000 hosts");
    if (c->hosts > 30000) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "too many hosts");
    /* synth keeps every task attempt of a run in memory and writes a few kB of log per task:
     * an input stage of data/split tasks past this would need gigabytes of both (100T in 1M
     * splits asked for 100 M tasks); split such a run or raise --split */
    const double max_stage_tasks = 10e6;
    double map_tasks = c->split_bytes > 0 ? ceil(c->data_bytes / c->split_bytes) : 0;
    if (map_tasks > max_stage_tasks)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                 "--data / --split gives %.0f tasks in one stage, over the %.0f synth simulates "
                                 "(memory and log size grow with every task): raise --split or lower --data",
                                 map_tasks, max_stage_tasks);
    return CLARITY_OK;
}
