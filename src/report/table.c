#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report/table.h"

void clarity_table_init(struct table *t, const struct table_col *cols, size_t ncols)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols;
}

void clarity_table_row(struct table *t, const char *const *cells)
{
    if (t->oom) return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **p = realloc(t->cells, cap * t->ncols * sizeof *p);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->cells = p, t->cap = cap;
    }
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        const char *s = cells[c] ? cells[c] : "";
        row[c] = strndup(s, strcspn(s, "\n"));   /* one line per row */
        if (!row[c]) {
            for (size_t k = 0; k < c; k++) free(row[k]);
            t->oom = 1;
            return;
        }
    }
    t->nrows++;
}

void clarity_table_free(struct table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* The longest suffix every non-empty cell of column c shares, kept to whole dot-separated
 * parts ("c.project.internal" of "w-0.c.project.internal"), and only when at least two cells
 * differ: a host column's common domain says nothing. */
static size_t common_suffix(const struct table *t, size_t c)
{
    const char *first = NULL;
    size_t n = 0, distinct = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *s = t->cells[r * t->ncols + c];
        if (!*s || !strcmp(s, "-")) continue;
        if (!first) {
            first = s;
            n = strlen(s);
            continue;
        }
        distinct |= strcmp(first, s) != 0;
        size_t ls = strlen(s), k = 0;
        while (k < n && k < ls && first[strlen(first) - 1 - k] == s[ls - 1 - k]) k++;
        n = k;
    }
    if (!first || !distinct) return 0;
    /* back to a dot, so what remains ends at a whole part */
    const char *end = first + strlen(first);
    while (n && end[-(long)n] != '.') n--;
    return n;
}

static size_t width_of(const char *s) { return strlen(s); }

/* s shortened to w columns: "start...end" keeping more of the end, which tells similar names
 * (call sites, file paths, host numbers) apart. */
static void cut_middle(char *s, size_t w)
{
    size_t n = strlen(s);
    if (n <= w || w < 5) {
        if (n > w) s[w] = '\0';
        return;
    }
    size_t keep = w - 3, head = keep / 4, tail = keep - head;
    memmove(s + head + 3, s + n - tail, tail + 1);
    memcpy(s + head, "...", 3);
}

/* A host name keeps its end, where cluster hosts differ ("...-w-3"). */
static void cut_front(char *s, size_t w)
{
    size_t n = strlen(s);
    if (n <= w || w < 5) {
        if (n > w) s[w] = '\0';
        return;
    }
    memmove(s + 3, s + n - (w - 3), w - 3 + 1);
    memcpy(s, "...", 3);
}

int clarity_table_write(FILE *o, struct table *t, size_t indent, size_t width)
{
    if (t->oom) return -1;
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w) return -1;
    /* host columns: drop the suffix every row shares, marked by "..." */
    for (size_t c = 0; width && c < t->ncols; c++) {
        if (t->cols[c].kind != TCOL_HOST) continue;
        size_t suf = common_suffix(t, c);
        if (suf < 4) continue;
        for (size_t r = 0; r < t->nrows; r++) {
            char *s = t->cells[r * t->ncols + c];
            size_t n = strlen(s);
            if (n > suf && strcmp(s, "-")) s[n - suf] = '\0';
        }
    }
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = width_of(t->cols[c].header);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = width_of(t->cells[r * t->ncols + c]);
            if (n > w[c]) w[c] = n;
        }
    }
    /* the last column is not padded, so it counts only its own width */
    size_t total = indent;
    for (size_t c = 0; c < t->ncols; c++) total += w[c] + (c ? 2 : 0);
    while (width && total > width) {
        size_t best = t->ncols;
        for (int pass = 0; pass < 2 && best == t->ncols; pass++)
            for (size_t c = 0; c < t->ncols; c++) {
                enum table_col_kind k = t->cols[c].kind;
                bool cuttable = pass == 0 ? k == TCOL_NAME || k == TCOL_HOST : k == TCOL_ID;
                if (cuttable && w[c] > 12 && w[c] > strlen(t->cols[c].header) && (best == t->ncols || w[c] > w[best]))
                    best = c;
            }
        if (best == t->ncols) break;   /* nothing left to shorten: numbers are never cut */
        /* one column at a time, the widest first, so the cut is shared among them */
        w[best]--;
        total--;
    }
    for (size_t c = 0; c < t->ncols; c++)
        for (size_t r = 0; r < t->nrows; r++) {
            char *s = t->cells[r * t->ncols + c];
            if (t->cols[c].kind == TCOL_HOST) cut_front(s, w[c]);
            else if (t->cols[c].kind == TCOL_NAME || t->cols[c].kind == TCOL_ID) cut_middle(s, w[c]);
        }
    /* each line built in a buffer, so trailing blanks (an empty last cell) can be dropped */
    size_t cap = indent + 1;
    for (size_t c = 0; c < t->ncols; c++) cap += w[c] + 2;
    for (size_t c = 0; c < t->ncols; c++)
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = strlen(t->cells[r * t->ncols + c]);
            if (n > w[c]) cap += n - w[c];   /* a cell wider than its column (nothing left to cut) */
        }
    char *line = malloc(cap + 1);
    if (!line) {
        free(w);
        return -1;
    }
    for (size_t r = 0; r <= t->nrows; r++) {
        size_t n = (size_t)snprintf(line, cap + 1, "%*s", (int)indent, "");
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = r == 0 ? t->cols[c].header : t->cells[(r - 1) * t->ncols + c];
            int last = c + 1 == t->ncols;
            if (t->cols[c].kind == TCOL_NUM) n += (size_t)snprintf(line + n, cap + 1 - n, "%s%*s", c ? "  " : "", (int)w[c], s);
            else n += (size_t)snprintf(line + n, cap + 1 - n, "%s%-*s", c ? "  " : "", last ? 0 : (int)w[c], s);
            if (n > cap) n = cap;
        }
        while (n && line[n - 1] == ' ') n--;
        line[n] = '\0';
        fprintf(o, "%s\n", line);
    }
    free(line);
    free(w);
    return 0;
}

void clarity_fit_line(FILE *o, size_t width, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    buf[strcspn(buf, "\n")] = '\0';
    if (width) cut_middle(buf, width);
    fprintf(o, "%s\n", buf);
}

void clarity_fit_wrap(FILE *o, size_t width, const char *lead, const char *text)
{
    /* a lead may start with blank lines: the indent is what follows its last newline */
    const char *nl = strrchr(lead, '\n');
    size_t ind = strlen(nl ? nl + 1 : lead), room = width > ind + 20 ? width - ind : 0;
    fputs(lead, o);
    while (room && strlen(text) > room) {
        /* the last space that leaves the line within the width; a word longer than the line
         * goes whole */
        size_t cut = room;
        /* not between a number and its unit ("1.4 s", "53.0 GB") unless no other space fits */
        while (cut && (text[cut] != ' ' || (text[cut - 1] >= '0' && text[cut - 1] <= '9'))) cut--;
        if (!cut) {
            cut = room;
            while (cut && text[cut] != ' ') cut--;
        }
        if (!cut) cut = strcspn(text, " ");
        if (!text[cut]) break;
        fprintf(o, "%.*s\n%*s", (int)cut, text, (int)ind, "");
        text += cut;
        while (*text == ' ') text++;
    }
    fprintf(o, "%s\n", text);
}

void clarity_fit_wrapf(FILE *o, size_t width, const char *lead, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    clarity_fit_wrap(o, width, lead, buf);
}

const char *clarity_fit_cell(char *buf, size_t cap, const char *s, size_t w)
{
    snprintf(buf, cap, "%s", s);
    buf[strcspn(buf, "\n")] = '\0';
    if (w) cut_middle(buf, w);
    return buf;
}

void clarity_csv_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', o);
        fputc(*s == '\n' ? ' ' : *s, o);
    }
    fputc('"', o);
}
