/* Whether a log entry must be read again, decided without reading it: a stat of each part and
 * a hash of the first part's head. Append-only logs (.inprogress, rolling parts) keep their
 * head and grow; a rewritten or replaced log changes its head, its size or its time. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include "store/store_internal.h"
#include "util/headread.h"

#define HEAD_BYTES 4096

static int head_hash(const char *path, uint64_t *out, struct clarity_error *err)
{
    char buf[HEAD_BYTES];
    size_t n;
    bool opened;
    int e = clarity_read_head(path, buf, sizeof buf, &n, &opened);
    if (e) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot %s: %s", opened ? "read" : "open", strerror(e));
    *out = XXH64(buf, n, 0);
    return CLARITY_OK;
}

int clarity_store_fingerprint(const struct clarity_app_source *src, struct clarity_store_fingerprint *fp,
                              struct clarity_error *err)
{
    return clarity_store_fingerprint_quick(src, NULL, fp, err);
}

int clarity_store_fingerprint_quick(const struct clarity_app_source *src, const struct clarity_store_log *stored,
                                    struct clarity_store_fingerprint *fp, struct clarity_error *err)
{
    memset(fp, 0, sizeof *fp);
    if (!src->nfiles) return clarity_error_set(err, CLARITY_EIO, src->path, 0, 0, "a log entry with no files");
    for (size_t i = 0; i < src->nfiles; i++) {
        struct stat st;
        if (stat(src->files[i].path, &st) != 0)
            return clarity_error_set(err, CLARITY_EIO, src->files[i].path, 0, 0, "cannot stat: %s", strerror(errno));
        fp->size += (uint64_t)st.st_size;
        int64_t ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (ns > fp->mtime_ns) fp->mtime_ns = ns;
    }
    if (stored && stored->state != CLARITY_STORE_LOG_DELETED && stored->fp.size == fp->size &&
        stored->fp.mtime_ns == fp->mtime_ns) {
        fp->head_hash = stored->fp.head_hash;
        return CLARITY_OK;
    }
    return head_hash(src->files[0].path, &fp->head_hash, err);
}

enum clarity_store_change clarity_store_classify(const struct clarity_store_log *stored,
                                                 const struct clarity_store_fingerprint *now)
{
    if (!stored || stored->state == CLARITY_STORE_LOG_DELETED) return CLARITY_STORE_NEW;
    const struct clarity_store_fingerprint *was = &stored->fp;
    if (was->size == now->size && was->mtime_ns == now->mtime_ns && was->head_hash == now->head_hash)
        return CLARITY_STORE_UNCHANGED;
    /* a log shorter than 4 KiB that grew has a different head hash, so it is called changed
     * rather than grown: both are read again, only the label differs */
    if (was->head_hash == now->head_hash && now->size > was->size) return CLARITY_STORE_GROWN;
    return CLARITY_STORE_CHANGED;
}
