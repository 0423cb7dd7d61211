/* `clarity findings --deep` over several applications: contention across the applications that
 * ran at the same time ("Across applications", docs/findings.md). The per-application pass
 * remembers each application (findings_remember); at the end (findings_cross_end, the
 * per_app_cmd end hook) groups of overlapping applications are read again, at most
 * ctx->window models at once, and iQCAR runs over each window. */
#ifndef CLARITY_CLI_FINDINGS_CROSS_H
#define CLARITY_CLI_FINDINGS_CROSS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/findings.h"
#include "clarity/report.h"

/* An application seen in the per-application pass, for the cross-application finding
 * (--deep): where to read it again and when it ran. */
struct seen_app { char *path, *id; int64_t start, end; };

struct findings_ctx {
    struct clarity_findings_options fo;
    struct findings_report_options ro;
    /* --deep: the applications seen, then reloaded a group of overlapping ones at a time
       (the per-application pass holds one model at a time, so a directory never holds all) */
    bool cross, quiet;
    struct seen_app *seen; size_t nseen, cap_seen;
    const struct clarity_load_options *lo;
    /* --window: models held at once across applications; windows analysed and the most
       models held at once, for the report */
    size_t window, windows, max_held;
    size_t *deg;                 /* per seen application: how many others overlapped it */
    size_t unconfirmed;          /* windows' findings dropped: an overlapping application outside */
    int oom;
};

/* Notes a (with its duration from r) for the cross-application pass when ctx->cross. */
void findings_remember(struct findings_ctx *fc, const struct clarity_app *a, const struct clarity_findings *r);
/* The end hook: the section "Across applications" (text) or the across_applications keys (JSON). */
int findings_cross_end(void *ctx, const struct clarity_app_set *set, FILE *text, struct jsonw *json,
                       struct clarity_error *err);

#endif
