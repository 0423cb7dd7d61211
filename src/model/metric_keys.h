#ifndef CLARITY_MODEL_METRIC_KEYS_H
#define CLARITY_MODEL_METRIC_KEYS_H
#include <stddef.h>
#include "clarity/model.h"

/* Each returns the metric for a key of that group, or -1. */
int clarity_metric_key_top(const char *k, size_t n);
int clarity_metric_key_shuffle_read(const char *k, size_t n);
int clarity_metric_key_shuffle_push(const char *k, size_t n);
int clarity_metric_key_shuffle_write(const char *k, size_t n);
int clarity_metric_key_input(const char *k, size_t n);
int clarity_metric_key_output(const char *k, size_t n);

#endif
