/* LADRA's victim host j' and stage i*. j' is, up to 4 hosts, the host whose tasks spent the
 * most time beyond their stage's median; on more hosts, the one whose tasks ran slowest against
 * the other hosts' tasks of their stage, per byte and allowing for its load (ladra_index.c,
 * host_slowdown; why in include/clarity/anomalies.h). Factors are computed for normal runs too,
 * since the GRNN trains on them. The scores come from the shared index (ladra_index.c) in one
 * pass, i* from the victim's own tasks. */
#include <stdlib.h>
#include <string.h>
#include "analysis/anomalies/ladra_index.h"

int clarity_ladra_victim(const struct ladra_input *in, int32_t force, int32_t *victim, int32_t *stage, double *host_excess,
                 double *stage_med, struct clarity_error *err)
{
    size_t nh = in->nhosts, ns = in->nstages;
    *victim = 0, *stage = 0;
    struct ladra_index x;
    struct ladra_stage_scratch sc;
    int rc = clarity__ladra_index_build(&x, in, err);
    if (rc) return rc;
    if (clarity__ladra_scratch_init(&sc, ns)) {
        clarity__ladra_index_free(&x);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    }
    /* j' by the rule for this host count; ties (a perfectly balanced run) go to the lowest
     * index, so the choice is deterministic */
    int32_t v = clarity__ladra_run_victim(&x);
    if (force >= 0 && (size_t)force < nh) v = force;
    /* i*: the stage with the most abnormal tasks on j', else the most excess time of j'. */
    *victim = v, *stage = clarity__ladra_host_stages(&x, in, v, &sc);
    if (host_excess) memcpy(host_excess, x.host_excess, nh * sizeof *host_excess);
    if (stage_med) memcpy(stage_med, x.stage_med, ns * sizeof *stage_med);
    clarity__ladra_scratch_free(&sc);
    clarity__ladra_index_free(&x);
    return 0;
}
