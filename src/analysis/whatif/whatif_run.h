/* The whole what-if of one application as `clarity whatif` asks it: the hardware the log ran
 * on (completed by an INI [cluster] section), the hardware to predict for (INI [whatif], then
 * flags: later wins), and which of the resource model, the core-count curve and the slot
 * replay at the what-if's cores that calls for. Prints nothing. */
#ifndef CLARITY_WHATIF_RUN_H
#define CLARITY_WHATIF_RUN_H
#include <stdbool.h>
#include <stddef.h>
#include "clarity/whatif.h"

struct clarity_whatif_ask {
    struct clarity_hw_change cluster;        /* the hardware the log ran on, where the log is silent */
    struct clarity_hw_change ini, flags;     /* the what-if from a profile and from flags */
    const struct clarity_curve_ask *curve;   /* core-count points asked (--executors/--cores) */
    size_t ncurve;                           /* 0: none asked (a curve then uses 0.5x, 1x, 2x, 4x) */
    enum clarity_curve_unit unit;
    enum clarity_slot_mode mode;
    int threads;                             /* workers per analysis: 0 one per core, 1 none */
};

struct clarity_whatif_result {
    struct clarity_hw base;                  /* the hardware the log ran on */
    struct clarity_hw_change change;         /* ini then flags */
    bool whatif;                             /* change sets anything */
    struct clarity_hw scen;                  /* base with the change; src says flag or INI */
    /* The resource model when a what-if is asked or no curve is; the curve when asked or no
     * what-if is; the slot replay at the what-if's cores when those change. */
    struct clarity_resource_result res;
    struct clarity_curve_result curve, slot;
    bool have_res, have_curve, have_slot;
};

/* Returns 0, or -1 on allocation failure (r then holds nothing to free). */
int clarity_whatif_run(const struct clarity_app *a, const struct clarity_whatif_ask *ask, struct clarity_whatif_result *r,
                       struct clarity_error *err);
void clarity_whatif_result_free(struct clarity_whatif_result *r);

#endif
