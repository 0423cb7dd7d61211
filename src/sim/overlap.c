/* How many tasks ran on a task's host while it ran: one sweep over every host's launch and
 * finish events. The LADRA components (a host running 8 tasks at once on 2 disks is loaded,
 * not faulty) and the tiny-tasks I/O model (I/O streams sharing a host's disks) both read
 * it, so it lives here, below the analysis features, rather than once in each. */
#include <stdlib.h>
#include "clarity/sim.h"

struct oev { int64_t t, host; uint32_t i; int d; };

static int oev_cmp(const void *pa, const void *pb)
{
    const struct oev *a = pa, *b = pb;
    if (a->host != b->host) return a->host < b->host ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    /* an end before a start at the same ms: a task that ends as another starts did not
       overlap it */
    return a->d - b->d;
}

int clarity_sim_host_overlap(const struct clarity_sim_span *s, size_t n, double *out, size_t *hosts)
{
    if (hosts) *hosts = 0;
    if (n == 0) return 0;
    struct oev *e = malloc(2 * n * sizeof *e);
    if (!e) return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        e[k++] = (struct oev){s[i].start_ms, s[i].host, (uint32_t)i, +1};
        e[k++] = (struct oev){s[i].end_ms > s[i].start_ms ? s[i].end_ms : s[i].start_ms, s[i].host, (uint32_t)i, -1};
    }
    qsort(e, k, sizeof *e, oev_cmp);
    /* the integral of the host's running count up to each event: a span's own share is the
       integral at its end minus the integral at its start */
    double integral = 0;
    int64_t running = 0, last = 0;
    for (size_t j = 0; j < k; j++) {
        if (j == 0 || e[j].host != e[j - 1].host) {
            integral = 0, running = 0, last = e[j].t;
            if (hosts) ++*hosts;
        }
        integral += (double)running * (double)(e[j].t - last);
        last = e[j].t;
        if (e[j].d > 0) out[e[j].i] = -integral;
        else out[e[j].i] += integral;
        running += e[j].d;
    }
    free(e);
    /* a span of no duration ran beside nothing (its end event sorts before its start) */
    for (size_t i = 0; i < n; i++)
        if (s[i].end_ms <= s[i].start_ms) out[i] = 0;
    return 0;
}
