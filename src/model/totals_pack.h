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
    size_t *off;                             /* record i is buf[off[i] .. off[i + 1]) */
    size_t n, cap_off;
};

/* An empty pack with room for n records of a typical size (more grows it). 0, or -1 when out
 * of memory. */
int clarity__totals_pack_init(struct totals_pack *p, size_t n);
/* Appends t as the next record. 0, or -1 when out of memory (the pack is left as it was). */
int clarity__totals_pack_put(struct totals_pack *p, const struct clarity_totals *t);
/* Record i (< p->n) into *out. */
void clarity__totals_pack_get(const struct totals_pack *p, size_t i, struct clarity_totals *out);
void clarity__totals_pack_free(struct totals_pack *p);

#endif
