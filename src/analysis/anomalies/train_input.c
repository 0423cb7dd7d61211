/* What LADRA reads besides the event log: executor and GC logs, and for training the
 * ground truth `clarity synth` writes beside a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/anomalies/ladra_train.h"
#include "event/json.h"

int clarity_ladra_logs_read(struct clarity_logs *L, const char *exdir, const char *gcdir, int64_t clock_offset_ms,
                            struct clarity_error *err)
{
    clarity_logs_init(L);
    L->clock_offset_ms = clock_offset_ms;
    int rc = CLARITY_OK;
    if (exdir) rc = clarity_logs_read_dir(L, exdir, false, err);
    if (!rc && gcdir) rc = clarity_logs_read_dir(L, gcdir, true, err);
    if (rc) {
        clarity_logs_free(L);
        return rc;
    }
    clarity_logs_finish(L);
    return CLARITY_OK;
}

/* The label from truth.json's first fault: {"faults": [{"kind": "cpu-hog", "affected_tasks": N}, ...]}. */
static int label_of(cj_val root)
{
    int label = LADRA_NORMAL;
    cj_val faults, fl;
    cj_iter it;
    if (clarity_cj_get(root, "faults", &faults) && clarity_cj_array_begin(faults, &it) && clarity_cj_array_next(&it, &fl)) {
        const char *k;
        size_t kl;
        int64_t affected = 0;
        clarity_cj_get_int(fl, "affected_tasks", &affected);
        if (affected > 0 && clarity_cj_get_str(fl, "kind", &k, &kl)) {
            if (!strncmp(k, "cpu", 3)) label = LADRA_CPU;
            else if (!strncmp(k, "memory", 6)) label = LADRA_MEMORY;
            else if (!strncmp(k, "network", 7)) label = LADRA_NETWORK;
            else if (!strncmp(k, "disk", 4)) label = LADRA_DISK;
        }
    }
    return label;
}

int clarity_ladra_truth_label(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/truth.json", dir);
    FILE *f = fopen(p, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    int label = -1;
    char *buf = n >= 0 ? malloc((size_t)n + CJ_PADDING) : NULL;
    /* headroom: with a capacity of n + 1 simdjson refused a 15-byte truth.json (too big) */
    cj_parser *ps = n >= 0 ? clarity_cj_parser_new((size_t)n + 4096) : NULL;
    if (buf && ps && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        memset(buf + n, 0, CJ_PADDING);
        cj_val root;
        const char *why;
        if (!clarity_cj_parse(ps, buf, (size_t)n, &root, &why)) label = label_of(root);
    }
    if (ps) clarity_cj_parser_free(ps);
    free(buf);
    fclose(f);
    return label;
}
