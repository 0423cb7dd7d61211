/* What a replay leaves out, measured on the log: the time no task ran (driver work), and how
 * much of a span's slot time tasks used. Blocked time, the resource model and the core-count
 * curve all add driver time back as measured rather than replaying it. */
#include "clarity/model.h"
#include "clarity/sim.h"
#include "util/checked.h"

void clarity_app_driver_time(const struct clarity_app *a, const struct clarity_replay_plan *p, int64_t *actual_ms,
                             int64_t *driver_ms)
{
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t c = 0; c < p->ncomp; c++) {
        if (p->comp[c].start_ms < first) first = p->comp[c].start_ms;
        if (p->comp[c].end_ms > last) last = p->comp[c].end_ms;
    }
    int64_t dur = clarity_app_duration_ms(a);
    int64_t start = a->start_ms > 0 && (p->ncomp == 0 || a->start_ms <= first) ? a->start_ms : first;
    int64_t end = dur >= 0 && a->start_ms > 0 ? clarity_sat_add(a->start_ms, dur) : last;
    if (p->ncomp == 0) {
        *actual_ms = dur > 0 ? dur : 0;
        *driver_ms = *actual_ms;
        return;
    }
    if (end < last) end = last;
    int64_t driver = first - start, reach = INT64_MIN;
    /* components are in start order; gaps between them had no task running */
    for (size_t c = 0; c < p->ncomp; c++) {
        if (reach != INT64_MIN && p->comp[c].start_ms > reach) driver += p->comp[c].start_ms - reach;
        if (p->comp[c].end_ms > reach) reach = p->comp[c].end_ms;
    }
    driver += end - reach;
    *actual_ms = end - start;
    *driver_ms = driver;
}

double clarity_slot_share(double busy_ms, double slots, double span_ms)
{
    return slots > 0 && span_ms > 0 ? busy_ms / (slots * span_ms) : 0;
}
