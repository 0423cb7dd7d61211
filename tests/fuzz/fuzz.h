/* Shared helpers of the libFuzzer harnesses (tests/fuzz/<name>.c, one per target). The
 * library reads files by path, so an input is written to a scratch file first: on a tmpfs
 * (FUZZ_TMPDIR, else /dev/shm, else TMPDIR) so that it costs no disk I/O. */
#ifndef CLARITY_FUZZ_H
#define CLARITY_FUZZ_H
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The directory scratch files go to. */
static const char *fuzz_tmpdir(void)
{
    static const char *dir;
    if (!dir) {
        struct stat st;
        dir = getenv("FUZZ_TMPDIR");
        if (!dir || !*dir) dir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : NULL;
        if (!dir) dir = getenv("TMPDIR");
        if (!dir || !*dir) dir = "/tmp";
    }
    return dir;
}

/* The source tree, for fixtures: CLARITY_ROOT, else where the harness was built. */
static const char *fuzz_root(void)
{
    const char *r = getenv("CLARITY_ROOT");
    return r && *r ? r : CLARITY_SOURCE_ROOT;
}

#define FUZZ_MAX_FILES 4
static char fuzz_files[FUZZ_MAX_FILES][512];

static void fuzz_unlink_files(void)
{
    for (int i = 0; i < FUZZ_MAX_FILES; i++)
        if (fuzz_files[i][0]) unlink(fuzz_files[i]);
}

/* Writes n bytes to scratch file slot (0..FUZZ_MAX_FILES-1) named with suffix (e.g. ".lz4":
 * some readers look at the name); returns its path, or NULL when it cannot be written. The
 * file is the process's own and is removed at exit. */
static const char *fuzz_write_file(int slot, const char *suffix, const void *data, size_t n)
{
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(fuzz_unlink_files);
    }
    char *path = fuzz_files[slot];
    if (path[0]) unlink(path);
    snprintf(path, sizeof fuzz_files[slot], "%s/clarity-fuzz-%ld-%d%s", fuzz_tmpdir(), (long)getpid(), slot, suffix);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return NULL;
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            close(fd);
            return NULL;
        }
        p += w;
        n -= (size_t)w;
    }
    close(fd);
    return path;
}

/* A stream that swallows what report writers print. */
static FILE *fuzz_sink(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    if (!f) abort();
    return f;
}

#endif
