/* How reports name the platform and the storage an application used (the model decides them,
 * src/model/platform.c; this only words them, the same way in every command). */
#include <stdio.h>
#include <string.h>
#include "clarity/report.h"

const char *clarity_report_platform(const struct clarity_app *a, char *buf, size_t cap)
{
    const struct clarity_platform *p = &a->platform;
    size_t n = 0;
    buf[0] = 0;
#define PUT(...) do { if (n < cap) { int k_ = snprintf(buf + n, cap - n, __VA_ARGS__); if (k_ > 0) n += (size_t)k_; } } while (0)
    if (p->vendor != CLARITY_VENDOR_NONE) {
        PUT("%s", clarity_vendor_name(p->vendor));
        if (p->runtime[0]) PUT(" %s", p->runtime);
    }
    if (p->photon) PUT("%s(Photon)", n ? " " : "");
    if (p->manager != CLARITY_CM_UNKNOWN && p->vendor != CLARITY_VENDOR_DATABRICKS)
        PUT("%s%s", n ? " on " : "", clarity_cluster_manager_name(p->manager));
    if (p->arch[0]) PUT(", %s", p->arch);
    if (p->cloud[0]) PUT(", %s", p->cloud);
    if (!n) PUT("unknown (%s)", a->have_env ? "no platform evidence in the environment" : "no environment in this log");
#undef PUT
    return buf;
}

/* how a scheme is written before a path: "gs://", but "file:" and "dbfs:" (file:/x, dbfs:/x) */
static const char *sep(int s)
{
    return s == CLARITY_SCHEME_FILE || s == CLARITY_SCHEME_DBFS ? ":" : s == CLARITY_SCHEME_OTHER ? " scheme" : "://";
}

/* "gs:// object store", "hdfs://", "s3:// 3 + hdfs:// 1 (mixed)", "not in this log" */
const char *clarity_report_storage(const struct clarity_platform *p, bool output, char *buf, size_t cap)
{
    const uint32_t *c = output ? p->output : p->input;
    int store = output ? p->output_store : p->input_store, top = output ? p->output_scheme : p->input_scheme;
    if (top < 0) {
        snprintf(buf, cap, "not in this log");
        return buf;
    }
    size_t n = 0, kinds = 0;
    for (int s = 0; s < CLARITY_SCHEME_COUNT; s++) kinds += c[s] > 0;
    if (kinds == 1) {
        snprintf(buf, cap, "%s%s%s", clarity_scheme_name(top), sep(top),
                 store == CLARITY_STORE_OBJECT ? " object store" : "");
        return buf;
    }
    buf[0] = 0;
    for (int s = 0; s < CLARITY_SCHEME_COUNT && n < cap; s++) {
        if (!c[s]) continue;
        int k = snprintf(buf + n, cap - n, "%s%s%s %u", n ? " + " : "", clarity_scheme_name(s), sep(s), c[s]);
        if (k > 0) n += (size_t)k;
    }
    if (n < cap) snprintf(buf + n, cap - n, " paths%s", store == CLARITY_STORE_MIXED ? " (mixed)" : "");
    return buf;
}

const char *clarity_report_storage_note(const struct clarity_app *a, char *buf, size_t cap)
{
    const struct clarity_platform *p = &a->platform;
    bool in = p->input_store == CLARITY_STORE_OBJECT, out = p->output_store == CLARITY_STORE_OBJECT;
    if (!in && !out) return NULL;
    char i[16] = "", o[16] = "";
    if (in) snprintf(i, sizeof i, "%s%s", clarity_scheme_name(p->input_scheme), sep(p->input_scheme));
    if (out) snprintf(o, sizeof o, "%s%s", clarity_scheme_name(p->output_scheme), sep(p->output_scheme));
    snprintf(buf, cap, "%s%s%s%s%s object store: network to a remote service, not disk; time not logged",
             in ? "input from " : "", i, in && out ? ", output to " : out ? "output to " : "", o, "");
    return buf;
}

const char *clarity_report_photon_wait(const struct clarity_app *a, char *buf, size_t cap)
{
    const struct clarity_platform *p = &a->platform;
    if (!p->photon) return NULL;
    if (!p->photon_has[CLARITY_PH_SCAN_IO_WAIT_NS]) {
        snprintf(buf, cap, "scan I/O wait: not in this log (Photon)");
        return buf;
    }
    int64_t task_ms = 0;
    for (size_t r = 0; r < a->tasks.n; r++)
        if (clarity_task_flags(a, r) & CLARITY_TF_ENDED) task_ms += clarity_icol_get(&a->tasks.duration, r);
    int64_t w = p->photon_v[CLARITY_PH_SCAN_IO_WAIT_NS] / 1000000;
    char t[32];
    snprintf(buf, cap, "scan I/O wait %s (Photon SQL metrics; %.1f%% of task time): in no column below",
             clarity_fmt_ms(t, sizeof t, w), task_ms > 0 ? 100.0 * (double)w / (double)task_ms : 0.0);
    return buf;
}
