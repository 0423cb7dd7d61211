/* The GC rule's saving on the log's own schedule (fnd_gc_chain.c). */
#ifndef CLARITY_FND_GC_CHAIN_H
#define CLARITY_FND_GC_CHAIN_H
#include "analysis/findings/fnd_internal.h"
/* Wall ms by which the application's components end earlier when each replay index i runs
   cut[i] ms shorter (cut has x->n entries, >= 0) on the slots and in the order it ran, summed
   over the components; -1 when out of memory. */
double clarity_fnd_gc_chain_saving(const struct fnd *x, const double *cut);
/* The same where queries arrive on their own (x->arr): over the whole application, each stage
   also waiting for the stage that released it in the log (or its query's arrival); the ms by
   which the application's last attempt ends earlier, -1 without arrivals or out of memory. */
double clarity_fnd_gc_chain_arrive_saving(const struct fnd *x, const double *cut);
#endif
