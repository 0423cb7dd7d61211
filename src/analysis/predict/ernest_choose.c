/* Which configuration to rent: the fewest machines (or, with a price, the cheapest) whose
 * predicted time plus an error margin meets the deadline (Ernest section 4.1, 6.3). */
#include <math.h>
#include <string.h>
#include "clarity/predict.h"

static double run_cost(const struct ernest_choose_options *o, int m, double seconds)
{
    double hours = seconds / 3600;
    if (o->hourly_billing) hours = ceil(hours - 1e-9);
    return m * o->price_per_machine_hour * hours;
}

void clarity_ernest_choose(const struct ernest_model *m, const struct ernest_choose_options *o, struct ernest_choice *out)
{
    memset(out, 0, sizeof *out);
    /* Without a margin from the user, the worst leave-one-out error is the error range the
     * training data showed; the paper leaves applying it to the user. */
    out->margin = o->margin >= 0 ? o->margin : (m->loo.done ? m->loo.max_pct / 100 : 0);
    out->fastest_s = INFINITY;
    for (int k = o->machines_min; k <= o->machines_max; k++) {
        double t = clarity_ernest_predict(m, o->scale, k);
        if (t < out->fastest_s) {
            out->fastest_s = t;
            out->fastest_machines = k;
        }
        double tm = t * (1 + out->margin);
        if (tm > o->deadline_s) continue;
        double c = o->price_per_machine_hour > 0 ? run_cost(o, k, tm) : 0;
        /* fewest machines: the first that meets it; cheapest: strictly cheaper only, so
         * ties keep fewer machines */
        if (!out->found || (o->price_per_machine_hour > 0 && c < out->cost - 1e-9)) {
            out->found = true;
            out->machines = k;
            out->predicted_s = t;
            out->with_margin_s = tm;
            out->cost = c;
        }
    }
    out->extrap = clarity_ernest_extrapolation(m, o->scale, out->found ? out->machines : out->fastest_machines);
}
