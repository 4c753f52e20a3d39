/* SPDX-License-Identifier: BSD-3-Clause */
/* record_file.c: a record written into a directory atomically (record_file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record_file.h"

void record_random_hex(char *out, size_t bytes)
{
    unsigned char raw[32];
    if (bytes > sizeof raw)
        bytes = sizeof raw;
    ssize_t got = getrandom(raw, bytes, GRND_NONBLOCK);
    if (got != (ssize_t)bytes) { /* no entropy yet (early boot): still unique to this run */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long mix = (unsigned long long)ts.tv_nsec ^
                                 ((unsigned long long)ts.tv_sec << 20) ^
                                 ((unsigned long long)getpid() << 40);
        for (size_t i = 0; i < bytes; i++) {
            mix = mix * 6364136223846793005ULL + 1442695040888963407ULL;
            raw[i] = (unsigned char)(mix >> 56);
        }
    }
    for (size_t i = 0; i < bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    out[2 * bytes] = '\0';
}

/* NAME with ".XXXXXXXX" put before its ".json" (or after it): a name of its own. */
static void other_name(const char *name, char *out, size_t len)
{
    char tag[17];
    record_random_hex(tag, 8);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0)
        snprintf(out, len, "%.*s.%s.json", (int)(n - 5), name, tag);
    else
        snprintf(out, len, "%s.%s", name, tag);
}

/* Whether DIR/NAME is a regular file of this user's (a record it wrote before). */
static int own_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/* TMP moved to DIR/NAME, never replacing a file (link: a second name, then the first
 * removed); under another name when NAME is taken. 0, 1 (another name, in WHY), -1. */
static int place_elsewhere(const char *dir, const char *name, const char *tmp, char *why,
                           size_t len)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        char alt[512], path[4096];
        other_name(name, alt, sizeof alt);
        snprintf(path, sizeof path, "%s/%s", dir, alt);
        if (link(tmp, path) == 0) {
            unlink(tmp);
            snprintf(why, len, "%s/%s was taken by a file not this user's; written as %s", dir,
                     name, path);
            return 1;
        }
        if (errno != EEXIST)
            break;
    }
    snprintf(why, len,
             "%s/%s was taken by a file not this user's, and no other name could be "
             "made: %s",
             dir, name, strerror(errno));
    unlink(tmp);
    return -1;
}

int record_file_write(const char *dir, const char *name, const char *text, int keep_first,
                      char *why, size_t len)
{
    char tmp[4096], final[4096];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        char tag[17];
        record_random_hex(tag, 8); /* a name nobody can take before this writer does */
        snprintf(tmp, sizeof tmp, "%s/.%s.%s.tmp", dir, name, tag);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
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
        if (link(tmp, final) == 0) {
            unlink(tmp);
            return 0;
        }
        int err = errno;
        if (err == EEXIST && own_file(final)) { /* the first record of this run stays */
            unlink(tmp);
            return 0;
        }
        if (err == EEXIST)
            return place_elsewhere(dir, name, tmp, why, len);
        unlink(tmp);
        snprintf(why, len, "cannot link %s to %s: %s", tmp, final, strerror(err));
        return -1;
    }
    if (rename(tmp, final) == 0)
        return 0;
    int err = errno;
    /* another user's file (a sticky directory), or a directory, holds the name */
    if (err == EPERM || err == EACCES || err == EISDIR || err == EEXIST || err == ENOTEMPTY)
        return place_elsewhere(dir, name, tmp, why, len);
    snprintf(why, len, "cannot rename %s to %s: %s", tmp, final, strerror(err));
    unlink(tmp);
    return -1;
}
