/* A streaming ZIP writer (PKWARE APPNOTE 6.3): entries are deflated with zlib as they are
 * read, their sizes and CRC follow each entry in a data descriptor (as java.util.zip's
 * ZipOutputStream writes them), so nothing is held in memory but one buffer and the central
 * directory. Entries or offsets past 4 GiB get ZIP64 records. */
#ifndef CLARITY_UTIL_ZIPW_H
#define CLARITY_UTIL_ZIPW_H
#include <stdint.h>
#include <stdio.h>

struct zipw_entry;

struct zipw {
    FILE *out;
    uint64_t offset;                   /* bytes written so far */
    struct zipw_entry *ents;           /* the central directory, written by clarity_zipw_close */
    size_t n, cap;
    int failed;                        /* 0, or the first error: ZIPW_EIO, ZIPW_ENOMEM */
};
enum { ZIPW_OK = 0, ZIPW_EIO = 1, ZIPW_ENOMEM = 2 };

void clarity_zipw_init(struct zipw *z, FILE *out);
/* A directory entry ("name/"), stored, empty. */
int clarity_zipw_dir(struct zipw *z, const char *name, int64_t mtime_s);
/* An entry named name holding everything read from in, deflated. mtime_s (Unix seconds) is
 * written as the entry's DOS time in UTC. Returns ZIPW_OK or the error (reading in or
 * writing out: ZIPW_EIO). */
int clarity_zipw_file(struct zipw *z, const char *name, FILE *in, int64_t mtime_s);
/* Writes the central directory and its end records, and frees what z holds; the stream is
 * the caller's to close. Returns z's first error, if any. */
int clarity_zipw_close(struct zipw *z);

#endif
