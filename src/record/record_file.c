/* record_file.c: a record written into a directory atomically (record_file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record_file.h"

int record_file_write(const char *dir, const char *name, const char *text, int keep_first,
                      char *why, size_t len)
{
    char tmp[4096], final[4096];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf(why, len, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t n = strlen(text), done = 0;
    while (done < n) {
        ssize_t w = write(fd, text + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(why, len, "cannot write %s: %s", tmp, w < 0 ? strerror(errno) : "no room");
            close(fd);
            unlink(tmp);
            return -1;
        }
        done += (size_t)w;
    }
    /* a partial record is written while the launcher may be killing the job: no fsync */
    if (write(fd, "\n", 1) != 1 || (!keep_first && fsync(fd) != 0) || close(fd) != 0) {
        snprintf(why, len, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (keep_first) { /* a partial record never replaces one already there */
        int rc = link(tmp, final);
        int err = errno;
        unlink(tmp);
        if (rc != 0 && err != EEXIST) {
            snprintf(why, len, "cannot link %s to %s: %s", tmp, final, strerror(err));
            return -1;
        }
        return 0;
    }
    if (rename(tmp, final) != 0) {
        snprintf(why, len, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
