#include "tree.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *srct_mktree(void)
{
    const char *tmp = getenv("TMPDIR");
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/clarity-src-XXXXXX", tmp && *tmp ? tmp : "/tmp") > 0);
    cr_assert_not_null(mkdtemp(p), "mkdtemp: %s", strerror(errno));
    return p;
}

char *srct_path(const char *root, const char *rel)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/%s", root, rel) > 0);
    return p;
}

static void mkparents(char *p)
{
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0755) != 0) cr_assert_eq(errno, EEXIST, "mkdir %s: %s", p, strerror(errno));
        *s = '/';
    }
}

void srct_mkdir(const char *root, const char *rel)
{
    char *p = srct_path(root, rel);
    mkparents(p);
    if (mkdir(p, 0755) != 0) cr_assert_eq(errno, EEXIST, "mkdir %s: %s", p, strerror(errno));
    free(p);
}

void srct_write(const char *root, const char *rel, const void *bytes, size_t n)
{
    char *p = srct_path(root, rel);
    mkparents(p);
    FILE *f = fopen(p, "wb");
    cr_assert_not_null(f, "fopen %s: %s", p, strerror(errno));
    if (n) cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    free(p);
}

void srct_log(const char *root, const char *rel)
{
    srct_write(root, rel, SRCT_JSON, sizeof SRCT_JSON - 1);
}

void srct_empty(const char *root, const char *rel)
{
    srct_write(root, rel, "", 0);
}

void srct_rmtree(const char *root)
{
    DIR *d = opendir(root);
    if (!d) {
        unlink(root);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *p = srct_path(root, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(p, 0755);
            srct_rmtree(p);
        } else {
            unlink(p);
        }
        free(p);
    }
    closedir(d);
    rmdir(root);
}

int srct_resolve1(const char *path, struct clarity_source_list *out, struct clarity_error *err)
{
    const char *paths[] = {path};
    return clarity_source_resolve(paths, 1, out, err);
}

const struct clarity_app_source *srct_app(const struct clarity_source_list *l, const char *root,
                                          const char *rel)
{
    char *p = srct_path(root, rel);
    const struct clarity_app_source *found = NULL;
    for (size_t i = 0; i < l->napps; i++)
        if (strcmp(l->apps[i].path, p) == 0) found = &l->apps[i];
    free(p);
    return found;
}

const struct clarity_source_note *srct_note(const struct clarity_source_list *l, const char *root,
                                            const char *rel)
{
    char *p = srct_path(root, rel);
    const struct clarity_source_note *found = NULL;
    for (size_t i = 0; i < l->nnotes; i++)
        if (strcmp(l->notes[i].path, p) == 0) found = &l->notes[i];
    free(p);
    return found;
}

const char *srct_file(const struct clarity_app_source *a, size_t i)
{
    cr_assert_lt(i, a->nfiles);
    const char *s = strrchr(a->files[i].path, '/');
    return s ? s + 1 : a->files[i].path;
}
