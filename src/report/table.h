/* Text tables that fit a width: cells are gathered first, then the widest shortenable text
 * column gives way until the table fits. Numbers are never cut. Host names lose the suffix
 * every row shares ("...-w-0" for "...-w-0.c.project.internal"), other names their middle,
 * keeping the distinguishing end ("collect at ...nds/nds_power.py:118"); a host name that is
 * still too long keeps its end ("...-w-3"). */
#ifndef CLARITY_REPORT_TABLE_H
#define CLARITY_REPORT_TABLE_H
#include <stddef.h>
#include <stdio.h>

enum table_col_kind {
    TCOL_NUM,                    /* right-aligned, never cut */
    TCOL_FIXED,                  /* left-aligned, never cut (ids, dates, statuses) */
    TCOL_NAME,                   /* left-aligned, cut in the middle */
    TCOL_HOST,                   /* left-aligned, the shared domain dropped, then cut at the front */
    TCOL_ID,                     /* left-aligned, cut in the middle only when no name or host can give way */
};

struct table_col {
    const char *header;
    enum table_col_kind kind;
};

struct table {
    const struct table_col *cols;
    size_t ncols;
    char **cells;                /* row-major, ncols per row, each malloc'd */
    size_t nrows, cap;
    int oom;
};

void clarity_table_init(struct table *t, const struct table_col *cols, size_t ncols);
/* Appends a row of ncols strings (copied). */
void clarity_table_row(struct table *t, const char *const *cells);
/* Writes the table with `indent` spaces before each line, fitted to `width` columns (0: no
 * limit). Returns -1 when out of memory (nothing written). */
int clarity_table_write(FILE *o, struct table *t, size_t indent, size_t width);
void clarity_table_free(struct table *t);

/* One line of text (no newline in fmt's output; it is added), cut in the middle to `width`
 * columns when longer (0: never): for paths and names outside a table. */
void clarity_fit_line(FILE *o, size_t width, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* s copied into buf (cap bytes), cut in the middle to w columns when longer (w 0: whole). */
const char *clarity_fit_cell(char *buf, size_t cap, const char *s, size_t w);
/* `lead` then `text`, wrapped at spaces to `width` columns (0: one line), continuation lines
 * indented by lead's length: for sentences, which must not lose their end. */
void clarity_fit_wrap(FILE *o, size_t width, const char *lead, const char *text);
/* clarity_fit_wrap of a formatted text (up to 4 kB; fmt's output has no newline). */
void clarity_fit_wrapf(FILE *o, size_t width, const char *lead, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A CSV cell: s in double quotes, its quotes doubled and newlines made spaces (one row a
 * line); NULL is the empty cell "". The fleet table's CSV and `clarity fleet query --csv`. */
void clarity_csv_str(FILE *o, const char *s);

#endif
