/* Where Ernest's training points come from besides a CSV (ernest_csv.h): a model file written
 * by `clarity ernest fit --json`, and the event logs of small runs. */
#ifndef CLARITY_ERNEST_POINTS_H
#define CLARITY_ERNEST_POINTS_H
#include <stdbool.h>
#include <stddef.h>
#include "clarity/error.h"
#include "clarity/predict.h"
#include "clarity/model.h"

/* Whether path looks like a model file: a name ending in .json whose first 256 bytes name the
 * schema clarity.ernest/1. */
bool clarity_ernest_is_model_file(const char *path);
/* A model file (schema clarity.ernest/1, docs/ernest-json.md) gives back its training points,
 * terms and scale unit; the fit is not read but redone from the points (it is exact and
 * cheap), so a model never drifts from its evidence. *pts is malloc'd (free it even on
 * error); unit gets "" when the file names none. Returns CLARITY_OK, or CLARITY_EIO /
 * CLARITY_EFORMAT (not such a model, or no points or terms) with err naming the file. */
int clarity_ernest_model_read(const char *path, struct ernest_point **pts, size_t *np, struct ernest_terms *terms,
                              char *unit, size_t unitcap, struct clarity_error *err);

/* What a run's log lacks to be a training point. */
enum { CLARITY_ERNEST_NO_INPUT = 1, CLARITY_ERNEST_NO_HOSTS = 2 };
/* One training point from a run: machines = the distinct hosts of its executors (the driver
 * apart), or `machines` when > 0; scale = its largest stage input / full_size bytes; seconds =
 * the application's time. Returns CLARITY_OK; CLARITY_ENOTFOUND when the log has no input
 * bytes (no task metrics) or no executor host, *missing saying which (CLARITY_ERNEST_NO_*) and
 * err why; or the error reading the run's stages and times. */
int clarity_ernest_point_from_app(const struct clarity_app *a, double full_size, int machines,
                                  struct ernest_point *out, int *missing, struct clarity_error *err);

#endif
