/* clarity serve LOG_DIR: a Spark History Server (REST API v1) over a log directory. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include "cli/commands.h"
#include "clarity/serve.h"
#include "util/units.h"

static void serve_usage(FILE *o)
{
    fprintf(o,
            "usage: clarity serve [options] LOG_DIR\n\n"
            "Serves the Spark History Server REST API (v1) over HTTP for the event logs in\n"
            "LOG_DIR, as SHS's own clients expect it: every path under /api/v1 answers what\n"
            "`clarity api LOG_DIR PATH` prints, byte for byte, with SHS's status codes (404 for\n"
            "an unknown application, stage or attempt, 400 for a bad parameter) and error texts.\n"
            "The listing (/api/v1/applications, with status, minDate, maxDate, minEndDate,\n"
            "maxEndDate and limit) is kept from scans of LOG_DIR; new, grown, rolled and\n"
            "deleted logs show within about a second (inotify; every --poll without it). An\n"
            "application's model is loaded when first asked and kept in a cache bounded by\n"
            "--max-apps and --max-memory (least recently used dropped first). A grown plain\n"
            "log's listing row and cached model are read on from where the last read stopped,\n"
            "as is a rolling log's model (new parts, and its last part when uncompressed); a\n"
            "grown compressed file is read again from the start. Access control:\n"
            "--acl (below) or a reverse proxy (docs/serve.md).\n\n"
            "options:\n"
            "  --host ADDR        address to listen on (default 127.0.0.1: this machine only;\n"
            "                     0.0.0.0 or :: for every interface: put a proxy in front)\n"
            "  --port N           TCP port (default 18080, SHS's; 0: any free port, printed)\n"
            "  --threads N        request threads (default 4)\n"
            "  --max-apps N       application models kept loaded (default 50)\n"
            "  --max-memory SIZE  bytes of models kept loaded, e.g. 4G (default 2Gi); a model\n"
            "                     larger than this is loaded for its request and then dropped,\n"
            "                     except for a stage's routes (the stage, its task list and task\n"
            "                     summary), which then load that stage's tasks alone, and routes\n"
            "                     that show no task (environment, storage, the attempt), which\n"
            "                     load no task; jobs, the stage list, executors and /sql keep\n"
            "                     task sums built while reading; stages?details=true and\n"
            "                     withSummaries load every task and may pass it\n"
            "  --poll DURATION    rescan period without inotify (default 2s)\n"
            "  --rescan DURATION  full rescan period with inotify (default 30s: NFS sends no events)\n"
            "  --no-inotify       poll even where inotify works\n"
            "  --max-connections N  connections at once (default 1024; more are closed at accept)\n"
            "  --per-ip N         connections at once from one address (default: no limit)\n"
            "  --timeout DURATION idle connection timeout (default 30s)\n"
            "  --max-request SIZE memory per connection for the request line and headers\n"
            "                     (default 64Ki; a longer request gets 414 or 431)\n"
            "  --stream-above SIZE  answers larger than this are streamed as they are written\n"
            "                     (chunked, one buffer of memory); smaller ones are sent whole with\n"
            "                     a Content-Length (default 8Mi)\n"
            "  --max-response SIZE  largest answer (default: no limit); larger: a 500, or a\n"
            "                     streamed answer cut (closed without its last chunk)\n"
            "  --tmp DIR          where partial loads keep task rows (default $TMPDIR or /tmp)\n"
            "  --load-threads N   threads per model load (default: one per core)\n"
            "  --store PATH       the SQLite store that keeps the listing across restarts (default:\n"
            "                     $XDG_CACHE_HOME/clarity/serve-HASH.db, HASH naming LOG_DIR; HOME's\n"
            "                     .cache without XDG_CACHE_HOME). With it, a restart answers at once\n"
            "                     from what the store saw and checks LOG_DIR in the background\n"
            "  --no-store         no store: the first scan reads every log before listening\n"
            "  --acl              SHS's spark.history.ui.acls.enable: an application is listed and\n"
            "                     answered only to its owner (sparkUser), the users and groups of\n"
            "                     its log's spark.ui.view.acls[.groups] and spark.admin.acls[.groups],\n"
            "                     and the admins below; others get 403 'user \"NAME\" is not\n"
            "                     authorized' on its routes and do not see it in /applications. A\n"
            "                     request with no user is refused. The log's spark.acls.enable is not\n"
            "                     read (SHS's own setting decides, as here)\n"
            "  --user-header NAME the request header holding the user, set by a trusted reverse\n"
            "                     proxy that authenticates (needed with --acl; ignored without):\n"
            "                     the server must then be reachable only through that proxy\n"
            "  --admin-acls LIST  spark.history.ui.admin.acls: users who may view every application\n"
            "  --admin-acls-groups LIST  spark.history.ui.admin.acls.groups: groups who may\n"
            "  --groups-file FILE a user's groups, from a file in /etc/group's format (read once at\n"
            "                     start); without it no user has a group\n"
            "  -q, --quiet        no log lines on stderr but errors\n"
            "  --help             this text\n\n"
            "SIGTERM or SIGINT stop accepting connections, let requests in flight finish (up to\n"
            "10 s) and exit 0.\n\n"
            "exit: 0 stopped by a signal, 2 usage, 3 LOG_DIR unreadable or the address cannot\n"
            "be bound.\n");
}

struct log_ctx { bool quiet; };

static void log_line(void *ctx, enum clarity_serve_level level, const char *msg)
{
    const struct log_ctx *lc = ctx;
    if (lc->quiet && level != CLARITY_SERVE_ERROR) return;
    char when[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    fprintf(stderr, "%s clarity serve: %s%s\n", when,
            level == CLARITY_SERVE_ERROR ? "error: " : level == CLARITY_SERVE_WARN ? "warning: " : "", msg);
}

static bool opt_size(const char *opt, const char *s, size_t *out)
{
    double b;
    struct clarity_error err;
    if (clarity_parse_size(s, &b, &err) != CLARITY_OK || b < 1 || b > 1e18) {
        fprintf(stderr, "clarity serve: --%s needs a size such as 512M, 4G or 2Gi, not '%s'\n", opt, s);
        return false;
    }
    *out = (size_t)b;
    return true;
}

static bool opt_ms(const char *opt, const char *s, int *out)
{
    double sec;
    struct clarity_error err;
    if (clarity_parse_duration(s, &sec, &err) != CLARITY_OK || sec < 0.01 || sec > 86400) {
        fprintf(stderr, "clarity serve: --%s needs a duration from 10ms to 1d, such as 2s or 500ms, not '%s'\n", opt, s);
        return false;
    }
    *out = (int)(sec * 1000);
    return true;
}

/* Thousands of connections need as many descriptors: raise the soft limit to the hard one. */
static rlim_t raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur;
}

enum { O_HOST = 0x100, O_PORT, O_THREADS, O_MAX_APPS, O_MAX_MEMORY, O_POLL, O_RESCAN, O_NO_INOTIFY, O_MAX_CONN,
       O_PER_IP, O_TIMEOUT, O_MAX_REQUEST, O_MAX_RESPONSE, O_STREAM_ABOVE, O_TMP, O_LOAD_THREADS, O_STORE, O_NO_STORE, O_HELP,
       O_ACL, O_USER_HEADER, O_ADMIN_ACLS, O_ADMIN_ACLS_GROUPS, O_GROUPS_FILE };

/* The default store: one file per log directory under the user's cache directory, named by a
 * hash of the directory's absolute path (FNV-1a), so two servers over two directories never
 * share one. NULL when there is no cache directory or it cannot be made. */
static char *default_store(const char *log_dir)
{
    char *abs = realpath(log_dir, NULL);
    if (!abs) return NULL;
    uint64_t h = 1469598103934665603ull;
    for (const char *p = abs; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    free(abs);
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/clarity", xdg);
    else if (home && *home) snprintf(dir, sizeof dir, "%s/.cache/clarity", home);
    else return NULL;
    char parent[4096];
    snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
    mkdir(parent, 0700);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return NULL;
    char *path = malloc(strlen(dir) + 40);
    if (path) sprintf(path, "%s/serve-%016llx.db", dir, (unsigned long long)h);
    return path;
}

int cmd_serve(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"host", required_argument, 0, O_HOST}, {"port", required_argument, 0, O_PORT},
        {"threads", required_argument, 0, O_THREADS}, {"max-apps", required_argument, 0, O_MAX_APPS},
        {"max-memory", required_argument, 0, O_MAX_MEMORY}, {"poll", required_argument, 0, O_POLL},
        {"rescan", required_argument, 0, O_RESCAN}, {"no-inotify", no_argument, 0, O_NO_INOTIFY},
        {"max-connections", required_argument, 0, O_MAX_CONN}, {"per-ip", required_argument, 0, O_PER_IP},
        {"timeout", required_argument, 0, O_TIMEOUT}, {"max-request", required_argument, 0, O_MAX_REQUEST},
        {"max-response", required_argument, 0, O_MAX_RESPONSE},
        {"stream-above", required_argument, 0, O_STREAM_ABOVE}, {"tmp", required_argument, 0, O_TMP},
        {"load-threads", required_argument, 0, O_LOAD_THREADS}, {"quiet", no_argument, 0, 'q'},
        {"store", required_argument, 0, O_STORE}, {"no-store", no_argument, 0, O_NO_STORE},
        {"acl", no_argument, 0, O_ACL}, {"user-header", required_argument, 0, O_USER_HEADER},
        {"admin-acls", required_argument, 0, O_ADMIN_ACLS}, {"admin-acls-groups", required_argument, 0, O_ADMIN_ACLS_GROUPS},
        {"groups-file", required_argument, 0, O_GROUPS_FILE},
        {"help", no_argument, 0, O_HELP}, {0, 0, 0, 0},
    };
    struct clarity_serve_options so = {.port = 18080};
    struct log_ctx lc = {0};
    long long v;
    size_t n;
    int c, ms;
    bool no_store = false;
    char *store_buf = NULL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "q", longopts, NULL)) != -1) {
        switch (c) {
        case O_HOST: so.host = optarg; break;
        case O_PORT:
            if (!opt_int_range("serve", "port", optarg, 0, 65535, &v)) return EXIT_USAGE;
            so.port = (int)v;
            break;
        case O_THREADS:
            if (!opt_int_range("serve", "threads", optarg, 1, 256, &v)) return EXIT_USAGE;
            so.threads = (int)v;
            break;
        case O_MAX_APPS:
            if (!opt_int_range("serve", "max-apps", optarg, 1, 1000000, &v)) return EXIT_USAGE;
            so.max_apps = (size_t)v;
            break;
        case O_MAX_MEMORY: if (!opt_size("max-memory", optarg, &so.max_memory)) return EXIT_USAGE; break;
        case O_POLL: if (!opt_ms("poll", optarg, &so.poll_ms)) return EXIT_USAGE; break;
        case O_RESCAN: if (!opt_ms("rescan", optarg, &so.rescan_ms)) return EXIT_USAGE; break;
        case O_NO_INOTIFY: so.no_inotify = true; break;
        case O_MAX_CONN:
            if (!opt_int_range("serve", "max-connections", optarg, 1, 1000000, &v)) return EXIT_USAGE;
            so.max_connections = (unsigned)v;
            break;
        case O_PER_IP:
            if (!opt_int_range("serve", "per-ip", optarg, 1, 1000000, &v)) return EXIT_USAGE;
            so.per_ip_connections = (unsigned)v;
            break;
        case O_TIMEOUT:
            if (!opt_ms("timeout", optarg, &ms)) return EXIT_USAGE;
            so.timeout_s = ms < 1000 ? 1 : (unsigned)(ms / 1000);
            break;
        case O_MAX_REQUEST: if (!opt_size("max-request", optarg, &so.max_request_bytes)) return EXIT_USAGE; break;
        case O_MAX_RESPONSE: if (!opt_size("max-response", optarg, &so.max_response_bytes)) return EXIT_USAGE; break;
        case O_STREAM_ABOVE: if (!opt_size("stream-above", optarg, &so.response_mem_bytes)) return EXIT_USAGE; break;
        case O_TMP: so.tmp_dir = optarg; break;
        case O_LOAD_THREADS:
            if (!opt_count("serve", "load-threads", optarg, &n) || n > 256) return EXIT_USAGE;
            so.load_threads = (int)n;
            break;
        case O_STORE: so.store_path = optarg; no_store = false; break;
        case O_NO_STORE: no_store = true; so.store_path = NULL; break;
        case O_ACL: so.acl = true; break;
        case O_USER_HEADER: so.user_header = optarg; break;
        case O_ADMIN_ACLS: so.admin_acls = optarg; break;
        case O_ADMIN_ACLS_GROUPS: so.admin_acls_groups = optarg; break;
        case O_GROUPS_FILE: so.groups_file = optarg; break;
        case 'q': lc.quiet = true; break;
        case O_HELP: serve_usage(stdout); return EXIT_OK;
        default: return bad_option("serve", argv, "q");
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "clarity serve: %s\n\n", optind >= argc ? "no log directory given" : "one log directory only");
        serve_usage(stderr);
        return EXIT_USAGE;
    }
    so.log_dir = argv[optind];
    struct stat dst;
    bool is_dir = stat(so.log_dir, &dst) == 0 && S_ISDIR(dst.st_mode);   /* else start says why, in one line */
    if (is_dir && !so.store_path && !no_store && !(so.store_path = store_buf = default_store(so.log_dir)))
        log_line(&lc, CLARITY_SERVE_WARN, "no cache directory for the default store: running without one (--store PATH)");
    so.log = log_line;
    so.log_ctx = &lc;
    rlim_t nofile = raise_nofile();
    unsigned want = so.max_connections ? so.max_connections : 1024;
    /* leave descriptors for logs being read and spooled answers */
    if (nofile < (rlim_t)want + 64) {
        so.max_connections = nofile > 128 ? (unsigned)(nofile - 64) : 64;
        log_line(&lc, CLARITY_SERVE_WARN, "open-file limit: at most fewer connections at once than asked");
    }

    /* SIGTERM and SIGINT are taken by sigwait here, so no thread is interrupted by them;
     * SIGPIPE (a client gone mid-answer) is the socket's error, not the process's end */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct clarity_server *srv;
    struct clarity_error err = {0};
    int rc = clarity_serve_start(&so, &srv, &err);
    if (rc != CLARITY_OK) {
        char buf[1200];
        fprintf(stderr, "clarity serve: %s\n", clarity_error_format(&err, buf, sizeof buf));
        free(store_buf);
        return rc == CLARITY_EUSAGE ? EXIT_USAGE : rc == CLARITY_ENOMEM ? EXIT_NOMEM : EXIT_INPUT;
    }
    struct clarity_serve_stats st;
    clarity_serve_stats(srv, &st);
    char msg[512];
    snprintf(msg, sizeof msg, "listening on http://%s:%d/api/v1/ (%zu applications in %zu logs)",
             so.host ? so.host : "127.0.0.1", clarity_serve_port(srv), st.apps, st.logs);
    log_line(&lc, CLARITY_SERVE_INFO, msg);
    /* the port is on stdout too, for scripts that started it with --port 0 */
    printf("%d\n", clarity_serve_port(srv));
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    snprintf(msg, sizeof msg, "%s: finishing requests in flight", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    log_line(&lc, CLARITY_SERVE_INFO, msg);
    clarity_serve_stats(srv, &st);
    clarity_serve_stop(srv, 10000);
    snprintf(msg, sizeof msg,
             "stopped: %llu requests (%llu answered 500), %llu scans, %llu model loads, %llu cache hits, %llu evictions, "
             "%llu models resumed (%llu bytes read)",
             (unsigned long long)st.requests, (unsigned long long)st.errors_5xx, (unsigned long long)st.scans,
             (unsigned long long)st.loads, (unsigned long long)st.cache_hits, (unsigned long long)st.evictions,
             (unsigned long long)st.resumes, (unsigned long long)st.resume_bytes);
    log_line(&lc, CLARITY_SERVE_INFO, msg);
    free(store_buf);
    return EXIT_OK;
}
