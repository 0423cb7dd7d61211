/* A main for the libFuzzer harnesses without libFuzzer: runs LLVMFuzzerTestOneInput once on
 * each file named (a directory: each regular file in it, in name order) and prints
 * "Running: PATH" before each, so that a crash or sanitizer report names the input.
 * `make check` links the harnesses with this driver against the ASan+UBSan build's library,
 * which it has just built anyway: the saved regressions and seed corpora are then replayed
 * without the third, coverage-instrumented build of the whole library that libFuzzer needs
 * (about 150 CPU s of clang, most of the fuzz suite), which only mutation fuzzing uses. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs the harness on one file; 0, or -1 when it cannot be read. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger) break;
            buf = bigger;
            cap *= 2;
        }
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    printf("Running: %s\n", path);
    fflush(stdout);
    /* libFuzzer hands the harness a buffer of exactly the input's size: copied so that ASan
     * sees an over-read past the input's end as libFuzzer's runs would */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the harness on each regular file of a directory, in name order; the count run, or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (!more) break;
            names = more;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) break;
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    long ran = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && replay_file(names[i]) == 0) ran++;
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    long ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        long r = -1;
        if (stat(argv[i], &st) == 0) r = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
        if (r < 0) {
            fprintf(stderr, "replay: %s: cannot read\n", argv[i]);
            return 2;
        }
        ran += r;
    }
    printf("replayed %ld input(s)\n", ran);
    return 0;
}
