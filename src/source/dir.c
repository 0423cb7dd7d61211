/* Lists a directory into name-sorted entries with their kind. opendir/readdir on a private
 * stream (no nftw and no globals) so concurrent resolves do not interfere. */
#include "source/internal.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct src_entry *)a)->name, ((const struct src_entry *)b)->name);
}

void clarity_src_dir_free(struct src_dir *d)
{
    for (size_t i = 0; i < d->n; i++) free(d->e[i].name);
    free(d->e);
    d->e = NULL;
    d->n = 0;
}

int clarity_src_dir_read(const char *path, struct src_dir *d)
{
    d->e = NULL;
    d->n = 0;
    DIR *dir = opendir(path);
    if (!dir) return errno;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            rc = errno;
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        if (d->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            struct src_entry *ne = realloc(d->e, nc * sizeof *ne);
            if (!ne) { rc = ENOMEM; break; }
            d->e = ne;
            cap = nc;
        }
        struct src_entry *e = &d->e[d->n];
        memset(e, 0, sizeof *e);
        e->name = strdup(de->d_name);
        if (!e->name) { rc = ENOMEM; break; }
        d->n++;
        /* stat follows symlinks: a link to a log or to an application directory is what
         * the user meant; a dangling link becomes a note with the errno. */
        struct stat st;
        if (fstatat(dirfd(dir), de->d_name, &st, 0) != 0) {
            e->kind = SRC_STAT_FAILED;
            e->err = errno;
        } else if (S_ISDIR(st.st_mode)) {
            e->kind = SRC_DIR;
            e->dev = (uint64_t)st.st_dev;
            e->ino = (uint64_t)st.st_ino;
        } else if (S_ISREG(st.st_mode)) {
            e->kind = SRC_REG;
            e->size = (uint64_t)st.st_size;
        } else {
            e->kind = SRC_OTHER;
        }
    }
    closedir(dir);
    if (rc) {
        clarity_src_dir_free(d);
        return rc;
    }
    if (d->n > 1) qsort(d->e, d->n, sizeof *d->e, cmp_entry);
    return 0;
}

const struct src_entry *clarity_src_dir_find(const struct src_dir *d, const char *name)
{
    struct src_entry key = {.name = (char *)name};
    if (d->n == 0) return NULL;
    return bsearch(&key, d->e, d->n, sizeof *d->e, cmp_entry);
}
