/* Training points from a CSV: machines,scale,seconds per line (ref-code's rcv1-parsed.csv
 * layout: cores, input fraction, time). '#' lines and a non-numeric header are skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/predict/ernest_csv.h"

int clarity_ernest_csv_read(const char *path, struct ernest_point **out, size_t *n, struct clarity_error *err)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
    char line[4096];
    size_t cap = 0;
    uint64_t lineno = 0;
    int rc = CLARITY_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || !*p) continue;
        double v[3];
        int k = 0;
        char *end = p;
        for (; k < 3; k++) {
            v[k] = strtod(p, &end);
            if (end == p) break;
            while (*end == ' ' || *end == '\t') end++;
            if (k < 2 && *end != ',') { k++; break; }
            p = end + (k < 2);
        }
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
        if (k == 0 && *n == 0) continue;      /* a header line */
        if (k != 3 || *end || !(v[0] > 0) || !(v[1] > 0) || !(v[2] > 0)) {
            rc = clarity_error_set(err, CLARITY_EFORMAT, path, lineno, 0,
                                   "expected machines,scale,seconds (three positive numbers)");
            break;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            void *q = realloc(*out, cap * sizeof **out);
            if (!q) { rc = clarity_error_set(err, CLARITY_ENOMEM, path, lineno, 0, "out of memory"); break; }
            *out = q;
        }
        (*out)[(*n)++] = (struct ernest_point){.machines = v[0], .scale = v[1], .seconds = v[2]};
    }
    fclose(f);
    if (rc == CLARITY_OK && *n == 0)
        rc = clarity_error_set(err, CLARITY_EFORMAT, path, 0, 0, "no training points (machines,scale,seconds)");
    if (rc != CLARITY_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
