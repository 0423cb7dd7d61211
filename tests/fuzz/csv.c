/* The CSV readers: Ernest's training points (machines,scale,seconds) and the contention
 * sidecar of instrumented task metrics (task_id,attempt,metric,value, optionally after an
 * application id), with the sidecar's lookups run on every row read. */
#include "analysis/predict/ernest_csv.h"
#include "clarity/contention.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, ".csv", data, size);
    if (!path) return 0;
    struct clarity_error err = {0};
    struct ernest_point *pts = NULL;
    size_t np = 0;
    if (clarity_ernest_csv_read(path, &pts, &np, &err) == 0 && (!pts || !np)) abort();
    free(pts);

    struct iqcar_sidecar sc = {0};
    if (clarity_iqcar_sidecar_load(path, &sc, &err) == 0) {
        if (sc.bad > sc.lines) abort();
        for (size_t i = 0; i < sc.nrows; i++) {
            size_t first = 0;
            size_t k = clarity_iqcar_sidecar_find(&sc, sc.rows[i].task_id, sc.rows[i].attempt, &first);
            if (k == 0 || first > i || i >= first + k) abort();   /* every row is found */
            clarity_iqcar_sidecar_row_for(&sc, &sc.rows[i], "app-1");
        }
    }
    clarity_iqcar_sidecar_free(&sc);
    return 0;
}
