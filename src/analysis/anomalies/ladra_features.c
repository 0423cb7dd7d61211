/* clarity's event-log features beyond the paper's seven factors (anomalies.h lists them):
 * the victim against the other hosts in the metrics real interference moves. Each is about 1
 * on a healthy run. They need only task metrics, so both modes compute them the same way. */
#include <math.h>
#include <stdlib.h>
#include "clarity/anomalies.h"
#include "util/stats.h"

/* fw_in/run_in and fw_out/run_out: tasks that fetch remote blocks, inside and outside the
 * window. Over every task, a window holding the reduce stage and not the map stage would look
 * like a network spread in a healthy run. */
struct acc { double run, cpu, gc, fw, swns, swb, slow, nslow, fw_in, run_in, fw_out, run_out, rb_in; };

int clarity_ladra_extended(const struct ladra_input *in, int32_t v, int64_t ws, int64_t we, const double *stage_med,
                   double f[LADRA_NFEAT], struct clarity_error *err)
{
    for (int k = LADRA_NFACTOR; k < LADRA_EDCO; k++) f[k] = 1;
    size_t nh = in->nhosts;
    if (nh < 2) return 0;
    struct acc *h = calloc(nh, sizeof *h);
    double *fwa = malloc(nh * sizeof *fwa);
    if (!h || !fwa) {
        free(h), free(fwa);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    }
    for (size_t i = 0; i < in->ntasks; i++) {
        const struct ladra_task *t = &in->tasks[i];
        struct acc *a = &h[t->host];
        double d = (double)(t->end_ms - t->start_ms);
        /* SLD over the whole run: the victim's slowdown is the point, not only in the window */
        if (stage_med && stage_med[t->stage] > 0) a->slow += d / stage_med[t->stage], a->nslow++;
        if (t->run_ms <= 0) continue;
        bool inside = t->start_ms < we && t->end_ms > ws;
        if (t->remote_bytes > 0) {
            double fw = t->fetch_wait_ms > 0 ? (double)t->fetch_wait_ms : 0;
            if (inside) a->run_in += (double)t->run_ms, a->fw_in += fw, a->rb_in += (double)t->remote_bytes;
            else a->run_out += (double)t->run_ms, a->fw_out += fw;
        }
        if (!inside) continue;
        a->run += (double)t->run_ms;
        if (t->cpu_ms >= 0) a->cpu += (double)t->cpu_ms;
        if (t->gc_ms > 0) a->gc += (double)t->gc_ms;
        if (t->fetch_wait_ms > 0) a->fw += (double)t->fetch_wait_ms;
        if (t->sw_bytes > 0 && t->sw_ns >= 0) a->swns += (double)t->sw_ns, a->swb += (double)t->sw_bytes;
    }
    const struct acc *x = &h[v];
    double o_cpe = 0, o_gcs = 0, o_fwv = 0, o_swt = 0, o_sld = 0;
    size_t k_cpe = 0, k_sw = 0, k_sld = 0;
    size_t k_fwa = 0;
    for (size_t j = 0; j < nh; j++) {
        if ((int32_t)j == v) continue;
        const struct acc *a = &h[j];
        if (a->run > 0) {
            o_cpe += a->cpu / a->run, o_gcs += a->gc / a->run, o_fwv += a->fw / a->run, k_cpe++;
            if (a->run_in > 0 && a->run_out > 0)
                fwa[k_fwa++] = (a->fw_in / a->run_in + 0.05) / (a->fw_out / a->run_out + 0.05);
        }
        if (a->swb > 0) o_swt += a->swns / a->swb, k_sw++;
        if (a->nslow > 0) o_sld += a->slow / a->nslow, k_sld++;
    }
    if (k_cpe && x->run > 0) {
        double ce = x->cpu / x->run;
        if (ce > 0) f[LADRA_CPE] = o_cpe / (double)k_cpe / ce;
        f[LADRA_GCS] = (x->gc / x->run + 0.01) / (o_gcs / (double)k_cpe + 0.01);
        f[LADRA_FWV] = (x->fw / x->run + 0.05) / (o_fwv / (double)k_cpe + 0.05);
    }
    if (k_fwa) f[LADRA_FWA] = clarity_median_mean_mid(fwa, k_fwa);
    double fw_all = 0, rb_all = 0;
    for (size_t j = 0; j < nh; j++) fw_all += h[j].fw_in, rb_all += h[j].rb_in;
    f[LADRA_FWB] = rb_all > 0 ? fw_all / (rb_all / 1048576.0) : 0;
    if (k_sw && x->swb > 0 && o_swt > 0) f[LADRA_SWT] = (x->swns / x->swb) / (o_swt / (double)k_sw);
    if (k_sld && x->nslow > 0 && o_sld > 0) f[LADRA_SLD] = (x->slow / x->nslow) / (o_sld / (double)k_sld);
    free(fwa);
    free(h);
    return 0;
}
