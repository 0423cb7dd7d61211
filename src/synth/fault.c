/* Injected interference, as LADRA's framework did it: a CPU hog (many busy processes), a
 * memory hog (a big allocation held), a disk hog (dd reading and writing) and a network
 * throttle, each on one host over a window. Hogs compete through the same processor sharing
 * as the tasks; the throttle lowers the NIC's capacity. */
#include <math.h>
#include <stdlib.h>
#include "synth/internal.h"

static bool active(const struct synth_fault *f, double t)
{
    return t >= f->start_s && (f->end_s < 0 || t < f->end_s);
}

void clarity_fault_schedule(struct sim *s)
{
    double next = INFINITY;
    for (int i = 0; i < s->cfg->nfaults; i++) {
        const struct synth_fault *f = &s->cfg->faults[i];
        if (f->start_s > s->now && f->start_s < next) next = f->start_s;
        if (f->end_s > s->now && f->end_s < next) next = f->end_s;
    }
    if (isfinite(next)) clarity_timer_set(&s->heap, s->fault_timer, next);
}

void clarity_fault_timer(struct sim *s)
{
    for (int hi = 0; hi < s->nhosts; hi++) {
        struct sy_host *h = &s->hosts[hi];
        double hog = 0, disk = 0, net = 1, mem = 0;
        int fc = -1, fd = -1, fn = -1, fm = -1;
        for (int i = 0; i < s->cfg->nfaults; i++) {
            const struct synth_fault *f = &s->cfg->faults[i];
            if (f->host - 1 != hi || !active(f, s->now)) continue;
            double x = fmin(f->intensity, f->kind == SYNTH_FAULT_NETWORK ? 0.99 : 0.95);
            switch (f->kind) {
            /* intensity = the share of the resource the hog takes when the tasks saturate it */
            case SYNTH_FAULT_CPU: hog += h->cores * x / (1 - x); fc = i; break;
            case SYNTH_FAULT_DISK: disk += h->disks * x / (1 - x); fd = i; break;
            case SYNTH_FAULT_NETWORK: net *= 1 - x; fn = i; break;
            case SYNTH_FAULT_MEMORY: mem = fmax(mem, x); fm = i; break;
            }
        }
        if (hog == h->hog_threads && disk == h->disk_hog_streams && net == h->net_factor && mem == h->mem_intensity)
            continue;
        clarity_host_advance(s, h);
        s->nthrottled += (net < 1) - (h->net_factor < 1);
        h->hog_threads = hog; h->disk_hog_streams = disk; h->net_factor = net; h->mem_intensity = mem;
        h->fault_cpu = fc; h->fault_disk = fd; h->fault_net = fn; h->fault_mem = fm;
        clarity_host_reschedule(s, h);
    }
    clarity_fault_schedule(s);
}
