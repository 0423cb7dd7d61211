/* What the files of src/fleet/ share: the index's directory walk, the query helpers. */
#ifndef CLARITY_FLEET_INTERNAL_H
#define CLARITY_FLEET_INTERNAL_H
#include <stdio.h>
#include "clarity/fleet.h"

/* RECURRING to o (text, CSV) or w (JSON members "recurring"). */
int clarity_fleet__recurring(FILE *o, struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                             enum clarity_fleet_format fmt, struct clarity_error *err);
const char *clarity_fleet__or_dash(const char *s);

/* An entry the walk could not settle from the store alone (fleet_walk.c says which): it is
 * stat'ed and, when it moved, read. */
struct clarity_fleet__cand {
    char *abs;                       /* absolute path (owned by the walk) */
    const char *rel;                 /* relative to the root, into abs */
    bool stored;                     /* the store has a row of this path */
    bool file;                       /* a regular file (else an application directory) */
    struct clarity_store_log row;    /* that row (path and error NULL) */
};
struct clarity_fleet__walk_cb {
    /* candidates of one directory, at most 512 a call, valid during the call; a non-zero
     * return stops the walk */
    int (*batch)(void *ctx, const struct clarity_fleet__cand *c, size_t n);
    void *ctx;
};
struct clarity_fleet__walk_stats {
    size_t unchanged;                /* settled from the store: completed logs known by name */
    size_t deleted;                  /* rows marked deleted: their entry is gone */
};
/* Walks abs_root (up to 4 levels below it, links followed, each directory once), merging each
 * directory's listing with the store's rows below it; with verify every entry is a candidate. */
int clarity_fleet__walk(struct clarity_store *s, const char *abs_root, bool verify,
                        const struct clarity_fleet__walk_cb *cb, struct clarity_fleet__walk_stats *st,
                        struct clarity_error *err);

#endif
