/* Dolly's rule, stage by stage (sim.h). */
#include <stdlib.h>
#include "clarity/sim.h"
#include "util/stats.h"

int64_t clarity_task_input_bytes(const struct clarity_task_comp *c)
{
    return c->shuffle_read_bytes > 0 ? c->shuffle_read_bytes : c->input_bytes > 0 ? c->input_bytes : 0;
}

/* runtime per input byte; the caller only rates tasks with input */
static double rate(const struct clarity_task_comp *c)
{
    double r = c->runtime_ms;
    return (r > 0 ? r : 0) / (double)clarity_task_input_bytes(c);
}

int clarity_dolly_median(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *median,
                         struct clarity_error *err)
{
    *median = 0;
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory applying Dolly's rule");
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[idx ? idx[k] : k];
        if (clarity_task_input_bytes(c) > 0) buf[m++] = rate(c);
    }
    *median = clarity_median_mean_mid(buf, m);
    free(buf);
    return 0;
}

double clarity_dolly_runtime(const struct clarity_task_comp *c, double median)
{
    int64_t in = clarity_task_input_bytes(c);
    if (in > 0 && median > 0 && c->runtime_ms / (double)in > median) return (double)in * median;
    return c->runtime_ms;
}

int clarity_dolly_stage(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *runtime,
                        struct clarity_error *err)
{
    double med;
    int rc = clarity_dolly_median(all, idx, n, &med, err);
    if (rc) return rc;
    for (size_t k = 0; k < n; k++) runtime[k] = clarity_dolly_runtime(&all[idx ? idx[k] : k], med);
    return 0;
}
