/* The INI reader, alone (both comment modes) and under its two readers: synth scenario files
 * (every setting parsed, then the config checked as a whole) and what-if hardware profiles. */
#include "clarity/synth.h"
#include "clarity/whatif.h"
#include "fuzz.h"
#include "util/ini.h"

static int count(void *ctx, const char *section, const char *key, const char *value, struct clarity_error *err)
{
    (void)err;
    if (!section || (key && !value) || (!key && value)) abort();
    size_t *n = ctx;
    *n += 1 + strlen(section) + (key ? strlen(key) + strlen(value) : 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, ".ini", data, size);
    if (!path) return 0;
    struct clarity_error err = {0};
    size_t n = 0;
    clarity_ini_read(path, 0, count, &n, &err);
    clarity_ini_read(path, CLARITY_INI_INLINE_COMMENTS, count, &n, &err);
    struct synth_config c;
    if (clarity_synth_config_init(&c, "wordcount", &err) == 0 && clarity_synth_config_load_ini(&c, path, &err) == 0)
        clarity_synth_config_check(&c, &err);
    struct clarity_hw_change cluster = {0}, whatif = {0};
    if (clarity_hw_ini_load(path, &cluster, &whatif, &err) == 0) {
        struct clarity_hw base = {0}, out;
        clarity_hw_apply(&base, &cluster, CLARITY_HWS_INI, &out);
        clarity_hw_apply(&out, &whatif, CLARITY_HWS_INI, &base);
    }
    return 0;
}
