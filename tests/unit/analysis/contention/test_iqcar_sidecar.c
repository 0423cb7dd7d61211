/* The sidecar CSV (--metrics-csv): line parsing, rejection reasons, lookup by
 * (task, attempt) with values that add up, and application filtering. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "clarity/contention.h"

/* 0 data line, 1 header/comment/blank, -1 rejected with *why set (CLARITY_EFORMAT), -2 any
 * other result */
static int parse(const char *text, struct iqcar_sidecar_row *row, char **app, const char **why)
{
    static char buf[256];
    static struct clarity_error err;
    snprintf(buf, sizeof buf, "%s", text);
    bool data = false;
    int rc = clarity_iqcar_sidecar_parse_line(buf, row, app, &data, &err);
    if (rc) {
        *why = err.msg;
        return rc == CLARITY_EFORMAT ? -1 : -2;
    }
    return data ? 0 : 1;
}

Test(iqcar_sidecar, lines)
{
    struct iqcar_sidecar_row r;
    char *app;
    const char *why = NULL;
    cr_assert_eq(parse(" 17 , 2 , mem.executionWait , 12.5\r\n", &r, &app, &why), 0);
    cr_expect(r.task_id == 17 && r.attempt == 2 && r.metric == IQ_A_MEM_EXEC_WAIT && r.value == 12.5 && r.app == -1);
    cr_expect_null(app);
    cr_assert_eq(parse("app-1,3,0,sched.slotsOffered,4", &r, &app, &why), 0);
    cr_expect(r.task_id == 3 && r.metric == IQ_A_SLOTS_OFFERED && r.value == 4);
    cr_expect_str_eq(app, "app-1");
    cr_expect_eq(parse("task_id,attempt,metric,value", &r, &app, &why), 1);
    cr_expect_eq(parse("app_id,task_id,attempt,metric,value", &r, &app, &why), 1);
    cr_expect_eq(parse("# comment", &r, &app, &why), 1);
    cr_expect_eq(parse("   ", &r, &app, &why), 1);
    const char *bad[] = {"1,0,cpu.blocked", "1,0,cpu.nope,3", "x,0,cpu.blocked,3", "1,-1,cpu.blocked,3",
                         "1,0,cpu.blocked,-2", "1,0,cpu.blocked,inf", "1,0,cpu.blocked,3ms", ",1,0,cpu.blocked,3",
                         "a,b,1,0,cpu.blocked,3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why = NULL;
        cr_expect_eq(parse(bad[i], &r, &app, &why), -1, "'%s' accepted", bad[i]);
        cr_expect(why && *why, "'%s' has no reason", bad[i]);
    }
    cr_expect_eq(clarity_iqcar_acc_key("cpu.waited", 10), IQ_A_CPU_WAITED);
    cr_expect_eq(clarity_iqcar_acc_key("cpu.waitedX", 10), IQ_A_CPU_WAITED);   /* len bytes only: KEY=NAME */
    cr_expect_eq(clarity_iqcar_acc_key("cpu", 3), -1);
    cr_expect_str_eq(clarity_iqcar_acc_key_name(IQ_A_MEM_STORAGE_ASKED), "mem.storageAsked");
}

Test(iqcar_sidecar, load_find_and_errors)
{
    char path[] = "/tmp/iqcar-sidecar-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("task_id,attempt,metric,value\n"
          "5,1,cpu.blocked,100\n"
          "2,0,cpu.blocked,7\n"
          "5,1,cpu.blocked,50\n"
          "5,0,cpu.waited,9\n"
          "5,1,cpu.oops,1\n"
          "appB,5,1,cpu.waited,3\n",
          f);
    fclose(f);
    struct iqcar_sidecar sc;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_iqcar_sidecar_load(path, &sc, &err), 0, "%s", err.msg);
    cr_expect_eq(sc.lines, 6);
    cr_expect_eq(sc.bad, 1);
    /* the rejected line is kept for the caller to report as "path:6: unknown metric ..." */
    cr_assert_not_null(sc.rejects);
    cr_expect_eq(sc.rejects[0].line, 6);
    cr_expect(!strncmp(sc.rejects[0].why, "unknown metric", strlen("unknown metric")), "why '%s'", sc.rejects[0].why);
    cr_expect_eq(sc.nrows, 5);
    size_t first, n = clarity_iqcar_sidecar_find(&sc, 5, 1, &first);
    cr_assert_eq(n, 3);
    double blocked = 0, waited_a = 0, waited_b = 0;
    for (size_t k = first; k < first + n; k++) {
        const struct iqcar_sidecar_row *r = &sc.rows[k];
        cr_expect(r->task_id == 5 && r->attempt == 1);
        if (r->metric == IQ_A_CPU_BLOCKED && clarity_iqcar_sidecar_row_for(&sc, r, "appA")) blocked += r->value;
        if (r->metric == IQ_A_CPU_WAITED && clarity_iqcar_sidecar_row_for(&sc, r, "appA")) waited_a += r->value;
        if (r->metric == IQ_A_CPU_WAITED && clarity_iqcar_sidecar_row_for(&sc, r, "appB")) waited_b += r->value;
    }
    cr_expect_eq(blocked, 150);
    cr_expect_eq(waited_a, 0);
    cr_expect_eq(waited_b, 3);
    cr_expect_eq(clarity_iqcar_sidecar_find(&sc, 5, 0, &first), 1);
    cr_expect_eq(sc.rows[first].value, 9);
    cr_expect_eq(clarity_iqcar_sidecar_find(&sc, 3, 0, &first), 0);
    cr_expect_eq(clarity_iqcar_sidecar_find(&sc, 99, 0, &first), 0);
    clarity_iqcar_sidecar_free(&sc);
    unlink(path);
    cr_expect_eq(clarity_iqcar_sidecar_load("/nonexistent/x.csv", &sc, &err), CLARITY_EIO);
    cr_expect_str_eq(err.file, "/nonexistent/x.csv");
    const char *want = "cannot read /nonexistent/x.csv: ";
    cr_expect(!strncmp(err.msg, want, strlen(want)), "msg '%s'", err.msg);
    clarity_iqcar_sidecar_free(&sc);
}
