/* What the query files of src/fleet/ share. */
#ifndef CLARITY_FLEET_INTERNAL_H
#define CLARITY_FLEET_INTERNAL_H
#include <stdio.h>
#include "clarity/fleet.h"

/* RECURRING to o (text, CSV) or w (JSON members "recurring"). */
int clarity_fleet__recurring(FILE *o, struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                             enum clarity_fleet_format fmt, struct clarity_error *err);
const char *clarity_fleet__or_dash(const char *s);

#endif
