/* Ernest training points from a CSV file. */
#ifndef CLARITY_ERNEST_CSV_H
#define CLARITY_ERNEST_CSV_H
#include "clarity/error.h"
#include "clarity/predict.h"

/* Reads machines,scale,seconds rows; *out is malloc'd. Returns CLARITY_OK or an error naming
 * the file and line. */
int clarity_ernest_csv_read(const char *path, struct ernest_point **out, size_t *n, struct clarity_error *err);

#endif
