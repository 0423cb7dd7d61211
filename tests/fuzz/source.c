/* The source resolver on random directory trees. The input is a little program that builds a
 * tree under a fresh temporary directory: files with tiny contents (empty, an event line, a
 * codec's magic, raw bytes), subdirectories, and symlinks (to a directory, its parent, itself,
 * another entry, nowhere), named like the layouts Spark and Databricks write (events_N_
 * parts, eventlog_v2_ directories, EVENT_LOG_N, eventlog-DATE.gz, appstatus_, ...) or from raw
 * bytes. The tree is resolved as named (the root, then an entry in it with the root) and
 * removed. */
#include <errno.h>
#include <ftw.h>
#include "clarity/source.h"
#include "fuzz.h"

enum { MAX_OPS = 48, MAX_DIRS = 16, MAX_ENTRIES = 64 };

struct prog { const uint8_t *p; size_t n; };
static unsigned next(struct prog *g)
{
    if (!g->n) return 0;
    g->n--;
    return *g->p++;
}

static const char *const suffixes[] = {"", ".zstd", ".lz4", ".compact", ".inprogress", ".snappy", ".lzf", ".gz",
                                       ".zstd.inprogress", ".lz4.compact", ".json", ".zst"};
#define NSUF (sizeof suffixes / sizeof *suffixes)
static const char *const codecs[] = {"lzf", "snappy", "lz4", "zstd", "gz", "org.apache.spark.io.LZFCompressionCodec",
                                     "org.apache.spark.io.SnappyCompressionCodec", "bogus"};

static void make_name(struct prog *g, char *buf, size_t cap)
{
    unsigned k = next(g) % 18, a = next(g);
    const char *suf = suffixes[a % NSUF];
    switch (k) {
    case 0: case 1: snprintf(buf, cap, "events_%u_app-1%s", a % 9, suf); break;
    case 2: snprintf(buf, cap, "eventlog_v2_app-%u%s", a % 3, a & 0x80 ? ".inprogress" : ""); break;
    case 3: snprintf(buf, cap, "appstatus_app-%u%s", a % 3, a & 0x80 ? ".inprogress" : ""); break;
    case 4: snprintf(buf, cap, "EVENT_LOG_%u", a % 3); break;
    case 5: snprintf(buf, cap, "SPARK_VERSION_1.%u.0", a % 4); break;
    case 6: snprintf(buf, cap, "APPLICATION_COMPLETE"); break;
    case 7: snprintf(buf, cap, "COMPRESSION_CODEC_%s", codecs[a % 8]); break;
    case 8: snprintf(buf, cap, "eventlog%s", a & 1 ? "" : suf); break;
    case 9: snprintf(buf, cap, "eventlog-2021-0%u-01--0%u-00.gz", 1 + a % 9, a % 7); break;
    case 10: snprintf(buf, cap, "app-2020010100000%u-0001%s", a % 4, suf); break;
    case 11: snprintf(buf, cap, "local-14229817807%u%s", a % 4, suf); break;
    case 12: snprintf(buf, cap, "application_1600000000000_000%u_%u%s", a % 3, 1 + a % 2, suf); break;
    case 13: snprintf(buf, cap, "%s", a & 1 ? "logs" : "app.json"); break;
    default: {
        size_t len = 1 + a % 12, i = 0;
        for (; i < len && i + 1 < cap && g->n; i++) {
            unsigned c = next(g);
            buf[i] = c == '/' || c == 0 ? '_' : (char)c;
        }
        buf[i] = 0;
        if (!i || !strcmp(buf, ".") || !strcmp(buf, "..")) snprintf(buf, cap, "x%u", a);
    }
    }
}

static const char event_line[] = "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.1.1\"}\n";
static const struct { const char *b; size_t n; } contents[] = {
    {"", 0}, {event_line, sizeof event_line - 1}, {"\x28\xB5\x2F\xFD", 4}, {"LZ4Block", 8}, {"\x1F\x8B", 2},
    {"ZV\0", 3}, {"\x82SNAPPY\0", 8},
};
#define NCONT (sizeof contents / sizeof *contents)

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP) rmdir(path);
    else unlink(path);
    return 0;
}

static void build(struct prog *g, const char *root, char (*entries)[512], size_t *nentries)
{
    char dirs[MAX_DIRS][512];
    size_t nd = 1, ne = 0;
    snprintf(dirs[0], sizeof dirs[0], "%s", root);
    for (int op = 0; op < MAX_OPS && g->n; op++) {
        unsigned kind = next(g) % 5;
        const char *parent = dirs[next(g) % nd];
        char name[64], path[600];
        make_name(g, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", parent, name);
        if (strlen(path) >= 512) continue;
        int made = -1;
        if (kind <= 1) {           /* a file */
            unsigned c = next(g) % (NCONT + 1);
            int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0) continue;
            made = 0;
            if (c < NCONT) made = write(fd, contents[c].b, contents[c].n) == (ssize_t)contents[c].n ? 0 : -1;
            else {                 /* raw bytes from the input */
                size_t len = next(g) % 24;
                if (len > g->n) len = g->n;
                made = write(fd, g->p, len) == (ssize_t)len ? 0 : -1;
                g->p += len;
                g->n -= len;
            }
            close(fd);
        } else if (kind == 2) {    /* a directory */
            made = mkdir(path, 0755);
            if (made == 0 && nd < MAX_DIRS) snprintf(dirs[nd++], sizeof dirs[0], "%s", path);
        } else {                   /* a symlink */
            char target[600];
            unsigned t = next(g) % 6;
            if (t == 0) snprintf(target, sizeof target, ".");
            else if (t == 1) snprintf(target, sizeof target, "..");
            else if (t == 2 && ne) snprintf(target, sizeof target, "%s", entries[next(g) % ne]);
            else if (t == 3) snprintf(target, sizeof target, "../%s", name);
            else if (t == 4) snprintf(target, sizeof target, "missing");
            else snprintf(target, sizeof target, "%s", name);   /* itself: ELOOP */
            made = symlink(target, path);
        }
        if (made == 0 && ne < MAX_ENTRIES) snprintf(entries[ne++], 512, "%s", path);
    }
    *nentries = ne;
}

static void resolve(const char *const *paths, size_t n)
{
    struct clarity_source_list list;
    struct clarity_error err = {0};
    clarity_source_resolve(paths, n, &list, &err);
    /* what came back must be whole */
    for (size_t i = 0; i < list.napps; i++) {
        const struct clarity_app_source *a = &list.apps[i];
        if (!a->path || (a->nfiles && !a->files)) abort();
        for (size_t j = 0; j < a->nfiles; j++)
            if (!a->files[j].path) abort();
    }
    for (size_t i = 0; i < list.nnotes; i++)
        if (!list.notes[i].path || !list.notes[i].why) abort();
    clarity_source_list_free(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[512];
    snprintf(root, sizeof root, "%s/clarity-fuzz-src-XXXXXX", fuzz_tmpdir());
    if (!mkdtemp(root)) return 0;
    static char entries[MAX_ENTRIES][512];
    size_t ne = 0;
    struct prog g = {data, size};
    build(&g, root, entries, &ne);
    const char *paths[2] = {root, NULL};
    resolve(paths, 1);
    if (ne) {
        paths[0] = entries[size % ne];
        paths[1] = root;
        resolve(paths, 2);
    }
    nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
