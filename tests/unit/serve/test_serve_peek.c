/* The listing's cheap reads (peek.c) and the ACL rule (acl.c), on worked cases: a suffix read
 * takes the application's end and stops at the last whole line, an event that changes more
 * than the end asks for a whole read, and SHS's view rule (owner, view list, groups, admins,
 * "*", no user) decides as worked by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "serve/serve_internal.h"

static char *tmp_file(const char *text)
{
    char *path = strdup("/tmp/clarity-peek-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

Test(serve_peek, suffix_takes_the_end_and_stops_at_the_last_whole_line)
{
    const char *head = "{\"Event\":\"SparkListenerApplicationStart\",\"Timestamp\":1000}\n";
    char text[512];
    snprintf(text, sizeof text, "%s%s%s%s", head, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0}\n",
             "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":5000}\n", "{\"Event\":\"SparkListenerJobE");
    char *path = tmp_file(text);
    struct serve_entry e = {.info = {.app_id = "a", .start_ms = 1000}};
    uint64_t next = 0;
    cr_assert_eq(clarity__serve_peek_suffix(path, strlen(head), &e, &next), 0);
    cr_assert_eq(e.info.end_ms, 5000);
    /* just past the ApplicationEnd line: the cut line is read again next time */
    cr_assert_eq(next, strlen(text) - strlen("{\"Event\":\"SparkListenerJobE"));
    unlink(path);
    free(path);
}

Test(serve_peek, an_event_beyond_the_end_asks_for_a_whole_read)
{
    const char *text = "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.4.1\"}\n"
                       "{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"x\",\"Timestamp\":1}\n";
    char *path = tmp_file(text);
    struct serve_entry e = {0};
    uint64_t next = 0;
    cr_assert_eq(clarity__serve_peek_suffix(path, 0, &e, &next), 1);
    unlink(path);
    free(path);
}

Test(serve_peek, a_class_name_event_is_the_same_event)
{
    /* Jackson-written logs name events by class; the loader strips the package */
    char *path = tmp_file("{\"Event\":\"org.apache.spark.scheduler.SparkListenerApplicationEnd\",\"Timestamp\":7}\n"
                          "{\"Event\":\"com.example.NotSparkListenerApplicationEnd\",\"Timestamp\":9}\n"
                          "{\"Event\":\"SparkListenerJobEnd\",\"x\":\"SparkListenerApplicationEnd\",\"Timestamp\":11}\n");
    struct serve_entry e = {0};
    uint64_t next = 0;
    cr_assert_eq(clarity__serve_peek_suffix(path, 0, &e, &next), 0);
    cr_assert_eq(e.info.end_ms, 7, "the class-named end is taken; the look-alike and the name in another field are not");
    unlink(path);
    free(path);
}

Test(serve_peek, a_malformed_end_line_changes_nothing)
{
    /* the loader counts such a line malformed and keeps the end it had */
    char *path = tmp_file("{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":\n");
    struct serve_entry e = {.info = {.end_ms = 0}};
    uint64_t next = 0;
    cr_assert_eq(clarity__serve_peek_suffix(path, 0, &e, &next), 0);
    cr_assert_eq(e.info.end_ms, 0);
    unlink(path);
    free(path);
}

Test(serve_acl, shs_view_rule)
{
    char *gpath = tmp_file("# comment\nanalysts:x:1001:frank, gina\nops:x:1002:hank\n");
    struct clarity_server s;
    memset(&s, 0, sizeof s);
    s.opt.acl = true;
    s.opt.admin_acls = "root";
    struct clarity_error err = {0};
    cr_assert_eq(clarity__serve_groups_load(gpath, &s.groups, &err), CLARITY_OK);
    struct serve_entry e = {.info = {.app_id = "a", .user = "alice"}, .acl_known = true};
    e.acl.view = strdup(" bob ,carol");
    e.acl.view_groups = strdup("analysts");
    e.acl.admin = strdup("dave");
    e.acl.admin_groups = strdup("ops");
    const char *yes[] = {"alice", "bob", "carol", "frank", "gina", "hank", "dave", "root"};
    const char *no[] = {"zed", "bo", "analysts", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) cr_assert(clarity__serve_acl_allows(&s, &e, yes[i]), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) cr_assert_not(clarity__serve_acl_allows(&s, &e, no[i]), "%s", no[i]);
    cr_assert_not(clarity__serve_acl_allows(&s, &e, NULL), "no user named: refused");
    struct serve_entry unknown = e;
    unknown.acl_known = false;
    cr_assert_not(clarity__serve_acl_allows(&s, &unknown, "alice"), "ACLs not read yet: refused");
    free(e.acl.view_groups);
    e.acl.view_groups = strdup("*");
    cr_assert(clarity__serve_acl_allows(&s, &e, "zed"), "a * group lets everyone in");
    s.opt.acl = false;
    cr_assert(clarity__serve_acl_allows(&s, &e, NULL), "ACLs off: everyone");
    clarity__serve_acl_props_free(&e.acl);
    clarity__serve_groups_free(s.groups);
    unlink(gpath);
    free(gpath);
    /* a line that is not a group is refused with its line number */
    gpath = tmp_file("ok:x:1:a\nnot a group\n");
    struct serve_groups *g = NULL;
    cr_assert_eq(clarity__serve_groups_load(gpath, &g, &err), CLARITY_EUSAGE);
    cr_assert_eq(err.line, 2);
    unlink(gpath);
    free(gpath);
}
