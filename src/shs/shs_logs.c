/* /applications/{id}[/{attempt}]/logs: the application's event log files in one ZIP, named
 * as the History Server's EventLogFileReader.zipEventLogFiles names them: a single-file log
 * as its file name; a log directory (rolling eventlog_v2_*, legacy, Databricks) as
 * "<dir>/" followed by "<dir>/<file>" for every regular file in it, by name. Every attempt of
 * the application when none is named, newest first, as SHS lists them. The paths are those
 * the logs were loaded from, never anything from the URL. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "shs/shs_internal.h"
#include "util/zipw.h"

static const char *base_name(const char *path, size_t *len)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;   /* "dir/" names dir */
    size_t s = n;
    while (s > 0 && path[s - 1] != '/') s--;
    *len = n - s;
    return path + s;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static int zip_one_file(struct zipw *z, const char *path, const char *entry, int64_t mtime)
{
    FILE *in = fopen(path, "rb");
    if (!in) return ZIPW_EIO;
    int rc = clarity_zipw_file(z, entry, in, mtime);
    fclose(in);
    return rc;
}

/* A directory's regular files, sorted by name (malloc'd names; *n of them). */
static char **dir_files(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d) return NULL;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2]))) continue;
        char *p;
        struct stat st;
        if (asprintf(&p, "%s/%s", dir, de->d_name) < 0) continue;
        bool reg = stat(p, &st) == 0 && S_ISREG(st.st_mode);
        free(p);
        if (!reg) continue;
        if (*n == cap) {
            char **w = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *w);
            if (!w) break;
            v = w;
        }
        if (!(v[*n] = strdup(de->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static int zip_attempt(struct zipw *z, const struct clarity_app *a)
{
    const char *path = a->source_path;
    struct stat st;
    if (!path || stat(path, &st) != 0) return ZIPW_EIO;
    size_t blen;
    const char *base = base_name(path, &blen);
    if (!S_ISDIR(st.st_mode)) {
        char *entry = strndup(base, blen);
        if (!entry) return ZIPW_ENOMEM;
        int rc = zip_one_file(z, path, entry, (int64_t)st.st_mtime);
        free(entry);
        return rc;
    }
    char *dir_entry;
    if (asprintf(&dir_entry, "%.*s/", (int)blen, base) < 0) return ZIPW_ENOMEM;
    int rc = clarity_zipw_dir(z, dir_entry, (int64_t)st.st_mtime);
    size_t n = 0;
    char **files = rc ? NULL : dir_files(path, &n);
    for (size_t i = 0; i < n; i++) {
        char *p = NULL, *entry = NULL;
        struct stat fst;
        if (!rc && (asprintf(&p, "%s/%s", path, files[i]) < 0 || asprintf(&entry, "%s%s", dir_entry, files[i]) < 0))
            rc = ZIPW_ENOMEM;
        if (!rc && stat(p, &fst) == 0) rc = zip_one_file(z, p, entry, (int64_t)fst.st_mtime);
        free(p);
        free(entry);
        free(files[i]);
    }
    free(files);
    free(dir_entry);
    return rc;
}

static bool attempt_wanted(const struct clarity_app *a, const char *want)
{
    if (!want) return true;
    return a->attempt_id && !strcmp(clarity_app_str(a, a->attempt_id), want);
}

/* The named attempt exists and every wanted attempt's log is still where it was loaded from:
 * decided before the first byte, so only a file vanishing mid-answer can cut it short. */
int clarity__shs_logs_check(struct shs_req *r)
{
    size_t found = 0;
    for (size_t i = 0; i < r->entry->natt; i++) {
        const struct clarity_app *a = r->entry->att[i];
        struct stat st;
        if (!attempt_wanted(a, r->attempt)) continue;
        if (!a->source_path || stat(a->source_path, &st) != 0)
            return clarity__shs_fail(r, SHS_NOT_FOUND, "event logs are not found for app: %s", r->entry->id);
        found++;
    }
    if (!found) return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown app attempt: %s/%s", r->entry->id, r->attempt);
    return CLARITY_OK;
}

int clarity__shs_logs(struct shs_req *r)
{
    struct zipw z;
    clarity_zipw_init(&z, r->out);
    int rc = ZIPW_OK;
    for (size_t i = 0; i < r->entry->natt && !rc; i++)
        if (attempt_wanted(r->entry->att[i], r->attempt)) rc = zip_attempt(&z, r->entry->att[i]);
    int crc = clarity_zipw_close(&z);
    if (!rc) rc = crc;
    /* the status line is gone by now: a file that vanished or out of memory can only cut the
     * body short, as it would cut SHS's stream */
    if (rc == ZIPW_ENOMEM) return clarity__shs_oom(r);
    if (rc) return clarity__shs_fail(r, SHS_INTERNAL, "cannot read the event log files of %s", r->entry->id);
    return CLARITY_OK;
}
