/* A set of task ids. Spark numbers tasks 0, 1, 2... in launch order, so a bit per id below
 * 2^31 costs an eighth of a byte a task and one load to test; ids outside that range (damaged
 * or hostile logs) go in a hash map instead. Used by the loads that pass tasks over (the
 * one-stage load remembers the tasks of other stages, the folding load the tasks already
 * folded), where a task's later events must be recognised without keeping its row. */
#ifndef CLARITY_UTIL_IDSET_H
#define CLARITY_UTIL_IDSET_H
#include "clarity/arena.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct clarity_idset {
    uint64_t *bits;
    size_t words;
    struct clarity_idmap other; /* ids below 0 or from 2^31 on */
};

bool clarity_idset_has(const struct clarity_idset *s, int64_t id);
/* 0, or -1 when out of memory (the set is unchanged). */
int clarity_idset_add(struct clarity_idset *s, int64_t id);
void clarity_idset_free(struct clarity_idset *s);

#endif
