/* Logs Spark writes besides the event log: driver and executor log4j text (Spark 1.6-3.x
 * layouts, Spark 4 JSON structured logging, YARN-aggregated files) and JVM GC logs (JDK 8
 * ParallelGC/G1 -XX:+PrintGCDetails with date or uptime stamps, JDK 9+ -Xlog:gc*). LADRA
 * (anomalies) reads them; every line that matches no template is counted by pattern so the
 * user can see what was not understood. Times are epoch ms, UTC unless a clock offset is set. */
#ifndef CLARITY_LOGS_H
#define CLARITY_LOGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"

/* ---- log4j lines ---- */
enum clarity_l4j_kind {
    CLARITY_L4J_NONE = 0,       /* not a log4j line (GC line, stack trace, YARN header...) */
    CLARITY_L4J_OTHER,          /* a log4j line of a kind LADRA does not use */
    CLARITY_L4J_START,          /* TaskSetManager: Starting task i.a in stage s.a (TID t, host, ...) */
    CLARITY_L4J_LAUNCH,         /* ...: Launching task t on executor id: e hostname: h. */
    CLARITY_L4J_FINISH,         /* TaskSetManager: Finished task ... (TID t) in N ms on host (d/n) */
    CLARITY_L4J_RUNNING,        /* Executor: Running task i.a in stage s.a (TID t) */
    CLARITY_L4J_EXEC_FINISHED,  /* Executor: Finished task ... (TID t). N bytes result sent to driver */
    CLARITY_L4J_EXECUTOR_ID,    /* Executor: Starting executor ID e on host h */
    CLARITY_L4J_KINDS
};
const char *clarity_l4j_kind_name(int kind);

enum { CLARITY_L4J_LEVEL_LEN = 8, CLARITY_L4J_NAME_LEN = 96 };
struct clarity_l4j_line {
    int kind;                           /* enum clarity_l4j_kind */
    int64_t ts_ms;
    bool ts_has_ms;                     /* the timestamp carried milliseconds */
    bool json;                          /* Spark 4 structured (JSON) line */
    char level[CLARITY_L4J_LEVEL_LEN];
    char logger[CLARITY_L4J_NAME_LEN];  /* short class name */
    int64_t task_index, task_attempt, stage, stage_attempt, tid, partition, bytes, duration_ms;
    int64_t done, total;                /* "(done/total)" of Finished task */
    int locality;                       /* enum clarity_locality, CLARITY_LOC_UNKNOWN when absent */
    char host[CLARITY_L4J_NAME_LEN];
    char executor[32];                  /* "" when the line does not name it */
};

/* Parses one line (no trailing newline needed). Fills out and returns its kind. Accepts
 * `yy/MM/dd HH:mm:ss[.SSS]` and `yyyy-MM-dd HH:mm:ss[,.SSS]` timestamps, with or without a
 * thread name in brackets, and Spark 4 JSON lines ({"ts":..., "level":..., "msg":...}). */
int clarity_l4j_parse(const char *line, size_t len, struct clarity_l4j_line *out);

/* Epoch ms from a timestamp at s; returns bytes consumed (0 if none). */
size_t clarity_l4j_timestamp(const char *s, size_t len, int64_t *ms, bool *has_ms);

/* ---- GC logs ---- */
struct clarity_gc_rec {
    int64_t ts_ms;                      /* absolute, or -1 when only uptime is known */
    double uptime_s;                    /* -1 when absent */
    bool full;                          /* full / mixed-old collection */
    char cause[48];
    double young_before_kb, young_after_kb, young_cap_kb;   /* -1 when the format has none */
    double heap_before_kb, heap_after_kb, heap_cap_kb;
    double pause_s, user_s, sys_s, real_s;                  /* times -1 when absent */
};

/* A streaming parser: feed lines, it joins records wrapped over several lines (JDK 8 prints
 * G1 details and wrapped ParallelGC records on many lines; unified logging prints the pause
 * and the cpu line apart) and emits one record per collection. */
struct clarity_gc_parser {
    char buf[4096]; size_t blen;        /* JDK 8 record being assembled */
    struct clarity_gc_rec pend;         /* unified: pause seen, cpu line not yet */
    long pend_id;                       /* unified GC(n) id of pend, -1 none */
    uint64_t lines, records, ignored;
};
void clarity_gc_parser_init(struct clarity_gc_parser *p);
/* Returns 1 when *out holds a finished record, 0 otherwise. */
int clarity_gc_feed(struct clarity_gc_parser *p, const char *line, size_t len, struct clarity_gc_rec *out);
/* Flushes a pending unified record without its cpu line; 1 when *out was filled. */
int clarity_gc_finish(struct clarity_gc_parser *p, struct clarity_gc_rec *out);
/* Parses one complete JDK 8 record (possibly a joined multi-line one); 0 ok, -1 not a record. */
int clarity_gc_parse_jdk8(const char *s, size_t len, struct clarity_gc_rec *out);

/* ---- directories of logs, joined to executors ---- */
struct clarity_log_task {               /* a task seen in a log4j log */
    int64_t tid, stage, stage_attempt, ts_ms, duration_ms;  /* duration -1 unknown */
    uint32_t executor;                  /* index in execs */
};
struct clarity_log_exec {
    char id[32], host[CLARITY_L4J_NAME_LEN];
    int64_t first_log_ms;               /* first log4j timestamp: JVM start estimate for uptime-only GC stamps */
    struct clarity_gc_rec *gc; size_t ngc, capgc;
    bool gc_uptime_only;                /* times were uptime + first_log_ms */
};
struct clarity_log_pattern { char key[64]; uint64_t count; };
struct clarity_logs {
    struct clarity_log_exec *execs; size_t nexecs, capexecs;
    struct clarity_log_task *tasks; size_t ntasks, captasks;
    uint64_t files, lines, l4j_lines, l4j_used, gc_records, gc_lines_ignored, yarn_headers, json_lines;
    uint64_t l4j_kind_count[CLARITY_L4J_KINDS];
    struct clarity_log_pattern *unknown; size_t nunknown, capunknown; /* not understood, by pattern */
    int64_t clock_offset_ms;            /* added to every log time (node clocks are assumed in sync otherwise) */
};
void clarity_logs_init(struct clarity_logs *l);
/* Reads every file under dir (executor logs: <host>/<exec>/stderr, <app>/<exec>/stderr,
 * YARN aggregated files; GC logs: <host>-<exec>.log, <exec>/stdout, gc*.log). A file's
 * executor comes from its path or from the "Starting executor ID" line in it. */
int clarity_logs_read_dir(struct clarity_logs *l, const char *dir, bool gc_dir, struct clarity_error *err);
/* Reads one file; exec_hint names its executor when the caller knows it (may be NULL). */
int clarity_logs_read_file(struct clarity_logs *l, const char *path, const char *exec_hint,
                           const char *host_hint, struct clarity_error *err);
/* After reading: GC records known only by uptime get absolute times from the executor's first
 * log4j line (the JVM started about then), and every executor's records are sorted by time. */
void clarity_logs_finish(struct clarity_logs *l);
/* *out gets the executor named id (created when create is set and there is none). Returns 0;
 * CLARITY_ENOTFOUND without create when there is none; CLARITY_ENOMEM. */
int clarity_logs_exec(struct clarity_logs *l, const char *id, bool create, struct clarity_log_exec **out,
                      struct clarity_error *err);
void clarity_logs_free(struct clarity_logs *l);

#endif
