/* clarity's event-log features beyond the paper's seven factors (anomalies.h lists them):
 * the victim against the other hosts in the metrics real interference moves. Each is about 1
 * on a healthy run. They need only task metrics, so both modes compute them the same way. */
#include <math.h>
#include <stdlib.h>
#include "analysis/anomalies/ladra_index.h"
#include "util/stats.h"

int clarity_ladra_extended(const struct ladra_input *in, int32_t v, int64_t ws, int64_t we, const double *stage_med,
                   double f[LADRA_NFEAT], struct clarity_error *err)
{
    for (int k = LADRA_NFACTOR; k < LADRA_EDCO; k++) f[k] = 1;
    size_t nh = in->nhosts;
    if (nh < 2) return 0;
    struct ladra_win *w = calloc(nh, sizeof *w);
    double *slow = calloc(nh, sizeof *slow), *nslow = calloc(nh, sizeof *nslow), *fwa = malloc(nh * sizeof *fwa);
    if (!w || !slow || !nslow || !fwa) {
        free(w), free(slow), free(nslow), free(fwa);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    }
    clarity__ladra_win_direct(in, ws, we, w);
    /* SLD over the whole run: the victim's slowdown is the point, not only in the window */
    for (size_t i = 0; i < in->ntasks && stage_med; i++) {
        const struct ladra_task *t = &in->tasks[i];
        if (stage_med[t->stage] > 0)
            slow[t->host] += (double)(t->end_ms - t->start_ms) / stage_med[t->stage], nslow[t->host]++;
    }
    clarity__ladra_extended_from(w, slow, nslow, nh, v, f, fwa);
    free(w), free(slow), free(nslow), free(fwa);
    return 0;
}

/* FWA reads tasks that fetch remote blocks, inside and outside the window: over every task,
 * a window holding the reduce stage and not the map stage would look like a network spread in
 * a healthy run. */
void clarity__ladra_extended_from(const struct ladra_win *w, const double *slow, const double *nslow, size_t nh,
                                  int32_t v, double f[LADRA_NFEAT], double *fwa)
{
    for (int k = LADRA_NFACTOR; k < LADRA_EDCO; k++) f[k] = 1;
    if (nh < 2) return;
    const struct ladra_win *x = &w[v];
    double o_cpe = 0, o_gcs = 0, o_fwv = 0, o_swt = 0, o_sld = 0;
    size_t k_cpe = 0, k_sw = 0, k_sld = 0;
    size_t k_fwa = 0;
    for (size_t j = 0; j < nh; j++) {
        if ((int32_t)j == v) continue;
        const struct ladra_win *a = &w[j];
        if (a->x_run > 0) {
            o_cpe += a->cpu / a->x_run, o_gcs += a->gc / a->x_run, o_fwv += a->x_fw / a->x_run, k_cpe++;
            if (a->r_run_in > 0 && a->r_run_out > 0)
                fwa[k_fwa++] = (a->r_fw_in / a->r_run_in + 0.05) / (a->r_fw_out / a->r_run_out + 0.05);
        }
        if (a->x_swb > 0) o_swt += a->x_swns / a->x_swb, k_sw++;
        if (nslow[j] > 0) o_sld += slow[j] / nslow[j], k_sld++;
    }
    if (k_cpe && x->x_run > 0) {
        double ce = x->cpu / x->x_run;
        if (ce > 0) f[LADRA_CPE] = o_cpe / (double)k_cpe / ce;
        f[LADRA_GCS] = (x->gc / x->x_run + 0.01) / (o_gcs / (double)k_cpe + 0.01);
        f[LADRA_FWV] = (x->x_fw / x->x_run + 0.05) / (o_fwv / (double)k_cpe + 0.05);
    }
    if (k_fwa) f[LADRA_FWA] = clarity_median_mean_mid(fwa, k_fwa);
    double fw_all = 0, rb_all = 0;
    for (size_t j = 0; j < nh; j++) fw_all += w[j].r_fw_in, rb_all += w[j].r_rb_in;
    f[LADRA_FWB] = rb_all > 0 ? fw_all / (rb_all / 1048576.0) : 0;
    if (k_sw && x->x_swb > 0 && o_swt > 0) f[LADRA_SWT] = (x->x_swns / x->x_swb) / (o_swt / (double)k_sw);
    if (k_sld && nslow[v] > 0 && o_sld > 0) f[LADRA_SLD] = (slow[v] / nslow[v]) / (o_sld / (double)k_sld);
}
