/* The INI reader: sections, key = value, comments, and file:line on a bad line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/ini.h"

static void write_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

struct seen { char log[1024]; int stop_at; int calls; };

static int record(void *ctx, const char *section, const char *key, const char *value, struct clarity_error *err)
{
    struct seen *s = ctx;
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s|%s|%s;", section, key ? key : "-", value ? value : "-");
    if (++s->calls == s->stop_at) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no %s here", key);
    return 0;
}

Test(ini, sections_keys_and_comments)
{
    char path[] = "/tmp/clarity-ini-XXXXXX";
    write_file(path, "# comment\n  ; another\ntop = 1\n\n[ cluster ]\n  disks = 2 ; two HDDs\nname = a#b\n[whatif]\nx=\n");
    struct seen s = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ini_read(path, 0, record, &s, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.log, "|top|1;cluster|-|-;cluster|disks|2 ; two HDDs;cluster|name|a#b;whatif|-|-;whatif|x|;");
    memset(&s, 0, sizeof s);
    cr_assert_eq(clarity_ini_read(path, CLARITY_INI_INLINE_COMMENTS, record, &s, &err), 0);
    cr_assert_str_eq(s.log, "|top|1;cluster|-|-;cluster|disks|2;cluster|name|a;whatif|-|-;whatif|x|;");
    remove(path);
}

Test(ini, bad_lines_name_file_and_line)
{
    char path[] = "/tmp/clarity-ini-XXXXXX";
    write_file(path, "[cluster]\nhosts = 4\njust words\n");
    struct seen s = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ini_read(path, 0, record, &s, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.file, path);
    cr_assert_eq(err.line, 3);
    cr_assert_str_eq(err.msg, "expected key = value");

    FILE *f = fopen(path, "w");
    fputs("a = 1\n[open\n", f);
    fclose(f);
    cr_assert_eq(clarity_ini_read(path, 0, record, &s, &err), CLARITY_EUSAGE);
    cr_assert_eq(err.line, 2);
    cr_assert_str_eq(err.msg, "unterminated section");

    /* the callback refuses the second key: its message, with the reader's file and line */
    f = fopen(path, "w");
    fputs("a = 1\n\n# c\nb = 2\nc = 3\n", f);
    fclose(f);
    memset(&s, 0, sizeof s);
    s.stop_at = 2;
    cr_assert_eq(clarity_ini_read(path, 0, record, &s, &err), CLARITY_EUSAGE);
    cr_assert_eq(err.line, 4);
    cr_assert_str_eq(err.file, path);
    cr_assert_str_eq(err.msg, "no b here");
    cr_assert_eq(s.calls, 2, "reading stops at the refused line");

    remove(path);
    cr_assert_eq(clarity_ini_read(path, 0, record, &s, &err), CLARITY_EIO);
    cr_assert_str_eq(err.file, path);
    cr_assert(strstr(err.msg, "cannot open") == err.msg, "%s", err.msg);
}

Test(ini, long_lines_are_whole)
{
    char path[] = "/tmp/clarity-ini-XXXXXX";
    char text[5000];
    memcpy(text, "key = ", 6);
    memset(text + 6, 'v', 4000);
    strcpy(text + 4006, "\nnext = 1\n");
    write_file(path, text);
    struct seen s = {0};
    cr_assert_eq(clarity_ini_read(path, 0, record, &s, NULL), 0);
    cr_assert_eq(s.calls, 2, "a 4000-character value is one line");
    remove(path);
}
