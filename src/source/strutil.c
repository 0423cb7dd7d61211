/* Small string helpers; NULL on allocation failure so callers map it to CLARITY_ENOMEM. */
#include "source/internal.h"
#include "util/strbuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *clarity_src_join(const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    /* "/" and "dir/" already end in a separator; doubling it would make paths that compare
     * unequal to the same file named another way. */
    bool sep = dl > 0 && dir[dl - 1] != '/';
    return clarity_str_printf("%s%s%s", dir, sep ? "/" : "", name);
}

bool clarity_src_has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool clarity_src_has_suffix(const char *s, const char *suffix)
{
    size_t sl = strlen(s), xl = strlen(suffix);
    return sl >= xl && strcmp(s + sl - xl, suffix) == 0;
}

bool clarity_src_parse_index(const char *s, size_t n, uint64_t *out)
{
    if (n == 0) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}
