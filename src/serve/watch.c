/* The directory watcher: rescans the log directory when it changes. With inotify, a change in
 * the directory or in one of its application directories (rolling logs gain parts there)
 * starts a rescan after a short quiet time, so a burst of writes costs one scan; a full rescan
 * also runs every rescan_ms, since network file systems send no events. Without inotify the
 * directory is rescanned every poll_ms. A rescan reads only the entries that changed. */
#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#include "serve/serve_internal.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB)
#define QUIET_MS 200

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Watches dir and its directories down to depth levels (application directories, and the
 * directories of many applications the resolver also searches). Adding a watch twice is
 * harmless: inotify returns the same descriptor. */
static void watch_tree(int fd, const char *dir, int depth)
{
    if (inotify_add_watch(fd, dir, WATCH_MASK | IN_ONLYDIR) < 0 || depth == 0) return;
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || de->d_type != DT_DIR) continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        watch_tree(fd, sub, depth - 1);
    }
    closedir(d);
}

static void rescan(struct clarity_server *s)
{
    struct clarity_error err = {0};
    if (clarity__serve_rescan(s, &err) != CLARITY_OK)
        clarity__serve_log(s, CLARITY_SERVE_WARN, "rescan of %s failed (the last listing stays): %s", s->log_dir, err.msg);
}

void *clarity__serve_watch_main(void *arg)
{
    struct clarity_server *s = arg;
    int fd = s->inotify_fd;
    if (fd >= 0) watch_tree(fd, s->log_dir, 4);
    clarity__serve_log(s, CLARITY_SERVE_INFO, "watching %s with %s", s->log_dir,
                       fd >= 0 ? "inotify" : "polling");
    int64_t last_full = now_ms(), dirty_since = 0;
    if (s->first_scan_pending) {
        /* the listing came from the store: find what changed while the server was down */
        int64_t t0 = now_ms();
        rescan(s);
        clarity__serve_log(s, CLARITY_SERVE_INFO, "first scan of %s: %.3f s", s->log_dir, (double)(now_ms() - t0) / 1e3);
    }
    char buf[16384] __attribute__((aligned(8)));
    while (!atomic_load(&s->stopping)) {
        int timeout = fd >= 0 ? (dirty_since ? QUIET_MS : s->opt.rescan_ms) : s->opt.poll_ms;
        struct pollfd p[2] = {{.fd = s->wake[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
        int n = poll(p, fd >= 0 ? 2 : 1, timeout);
        if (atomic_load(&s->stopping) || (n > 0 && (p[0].revents & POLLIN))) break;
        if (fd >= 0 && n > 0 && (p[1].revents & POLLIN)) {
            bool new_dir = false;
            for (ssize_t r; (r = read(fd, buf, sizeof buf)) > 0;)
                for (char *q = buf; q < buf + r;) {
                    const struct inotify_event *ev = (const struct inotify_event *)q;
                    if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO))) new_dir = true;
                    if (ev->mask & IN_Q_OVERFLOW) new_dir = true;
                    q += sizeof *ev + ev->len;
                }
            if (new_dir) watch_tree(fd, s->log_dir, 4);
            if (!dirty_since) dirty_since = now_ms();
            /* wait for a quiet moment, but not forever: a log appended without pause still
             * shows in the listing every QUIET_MS */
            if (now_ms() - dirty_since < QUIET_MS) continue;
        }
        int64_t t = now_ms();
        if (fd < 0 || dirty_since || t - last_full >= s->opt.rescan_ms) {
            rescan(s);
            dirty_since = 0;
            last_full = t;
        }
    }
    return NULL;
}
