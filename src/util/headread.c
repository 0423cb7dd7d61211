#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "util/headread.h"

int clarity_read_head(const char *path, void *buf, size_t cap, size_t *n, bool *opened)
{
    *n = 0;
    *opened = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return errno;
    *opened = true;
    while (*n < cap) {
        ssize_t r = read(fd, (char *)buf + *n, cap - *n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            return e;
        }
        if (r == 0) break;
        *n += (size_t)r;
    }
    close(fd);
    return 0;
}
