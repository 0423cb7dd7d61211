/* Totals kept packed: one record per row of a table, only its nonzero figures, each in as
 * few bytes as its value needs. */
#ifndef CLARITY_MODEL_TOTALS_PACK_H
#define CLARITY_MODEL_TOTALS_PACK_H
#include <stddef.h>
#include <stdint.h>
#include "clarity/model.h"

/* Why: `summary` keeps a stage's totals from the pass over the tasks until the report writes
 * the stage, its jobs and its query. As a `struct clarity_totals` that is 168 bytes a stage,
 * written once into fresh pages; on a log of 10^5 small jobs (two stages each) it was 34 MB,
 * a sixth of the memory the load and report touch, and touching fresh memory is what costs
 * there. A small job's stage has a dozen nonzero figures of 1-4 bytes each, so the packed
 * record is ~25 bytes. Decoding gives back the same 168-byte struct, value for value. */
struct totals_pack {
    uint8_t *buf;
    size_t len, cap;
    size_t *at;                              /* record i starts at buf[at[i]] (records are
                                                self-delimiting and put in any order) */
    size_t n;
};

/* An empty pack of n records, each to be put once, with room for records of a typical size
 * (more grows it). 0, or -1 when out of memory. */
int clarity__totals_pack_init(struct totals_pack *p, size_t n);
/* Packs t as record i (< n). 0, or -1 when out of memory (the pack is left as it was). */
int clarity__totals_pack_put(struct totals_pack *p, size_t i, const struct clarity_totals *t);
/* Record i (< n, put before) into *out. */
void clarity__totals_pack_get(const struct totals_pack *p, size_t i, struct clarity_totals *out);
void clarity__totals_pack_free(struct totals_pack *p);

#endif
