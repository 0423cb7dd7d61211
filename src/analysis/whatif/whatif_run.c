/* Which what-if analyses an application gets, on which hardware. */
#include <math.h>
#include <string.h>
#include "analysis/whatif/whatif_run.h"

/* later wins: INI then flags */
static void merge(struct clarity_hw_change *into, const struct clarity_hw_change *from)
{
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++) if (from->f[f].set) into->f[f] = from->f[f];
}

int clarity_whatif_run(const struct clarity_app *a, const struct clarity_whatif_ask *op, struct clarity_whatif_result *r,
                       struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    struct clarity_hw base, scen;
    clarity_hw_from_log(a, &base);
    struct clarity_hw tmp = base;
    clarity_hw_apply(&tmp, &op->cluster, CLARITY_HWS_INI, &base);
    struct clarity_hw_change change = op->ini;
    merge(&change, &op->flags);
    bool whatif = clarity_hw_change_any(&change);
    clarity_hw_apply(&base, &change, CLARITY_HWS_FLAG, &scen);
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++)   /* say which of the two gave it */
        if (change.f[f].set && !op->flags.f[f].set) scen.src[f] = CLARITY_HWS_INI;
    r->base = base;
    r->scen = scen;
    r->change = change;
    r->whatif = whatif;

    bool curve_asked = op->ncurve > 0;
    bool want_res = whatif || !curve_asked;
    static const struct clarity_curve_ask dflt[] = {{0.5, true}, {1, true}, {2, true}, {4, true}};
    const struct clarity_curve_ask *ask = curve_asked ? op->curve : dflt;
    size_t nask = curve_asked ? op->ncurve : 4;
    bool want_curve = curve_asked || !whatif;

    int rc = 0;
    if (want_res) {
        rc = clarity_resources_analyze(a, &r->base, whatif ? &r->scen : NULL, op->threads, &r->res, err);
        r->have_res = !rc;
    }
    if (!rc && want_curve) {
        rc = clarity_curve_analyze(a, &r->base, op->mode, op->unit, ask, nask, op->threads, &r->curve, err);
        r->have_curve = !rc;
    }
    /* a what-if that changes the cores also gets the plain slot replay at its core count */
    if (!rc && whatif && fabs(clarity_hw_cores(&scen) - clarity_hw_cores(&base)) > 1e-9) {
        struct clarity_curve_ask one = {clarity_hw_cores(&scen), false};
        rc = clarity_curve_analyze(a, &r->base, op->mode, CLARITY_CURVE_CORES, &one, 1, op->threads, &r->slot, err);
        r->have_slot = !rc;
    }
    if (rc) clarity_whatif_result_free(r);
    return rc;
}

void clarity_whatif_result_free(struct clarity_whatif_result *r)
{
    if (r->have_res) clarity_resources_free(&r->res);
    if (r->have_curve) clarity_curve_free(&r->curve);
    if (r->have_slot) clarity_curve_free(&r->slot);
    r->have_res = r->have_curve = r->have_slot = false;
}
