/* SPDX-License-Identifier: BSD-3-Clause */
/* run_claim.c: a run's hold on its output directory and the problems its ranks record
 * (run_claim.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run_claim.h"

#define CLAIM_BYTES (LENS_CLAIM_SLOTS * LENS_CLAIM_SLOT)

static void claim_path(const char *dir, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", dir, LENS_CLAIM_FILE);
}

/* All of LEN bytes of BUF at OFFSET; 0 or -1 with errno. */
static int pwrite_all(int fd, const char *buf, size_t len, off_t offset)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, buf, len, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
        offset += n;
    }
    return 0;
}

int lens_claim_take(const char *dir, int *out, char *holder, size_t len)
{
    char path[4300];
    claim_path(dir, path, sizeof path);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int rc = flock(fd, LOCK_EX | LOCK_NB);
    struct stat held, named;
    if (rc == 0 && fstat(fd, &held) == 0 &&
        (stat(path, &named) != 0 || held.st_ino != named.st_ino || held.st_dev != named.st_dev)) {
        close(fd); /* its holder ended and removed it meanwhile: the directory's file is new */
        return lens_claim_take(dir, out, holder, len);
    }
    if (rc != 0) {
        int why = errno;
        if (why == EWOULDBLOCK) {
            char first[LENS_CLAIM_SLOT] = "";
            ssize_t n = pread(fd, first, sizeof first - 1, 0);
            first[n > 0 ? n : 0] = '\0';
            first[strcspn(first, "\n")] = '\0';
            snprintf(holder, len, "%s", first[0] ? first : "another mpilens run");
            close(fd);
            return 1;
        }
        close(fd);
        errno = why;
        return -1;
    }
    /* every block written now: problems recorded later need no new space */
    static const char zeros[CLAIM_BYTES];
    char first[LENS_CLAIM_SLOT] = "", host[256] = "?";
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char who[300];
    if (strcmp(program_invocation_short_name, "mpilens") == 0)
        snprintf(who, sizeof who, "mpilens run");
    else /* rank 0 of a run without mpilens run */
        snprintf(who, sizeof who, "a run of %.200s", program_invocation_short_name);
    int n = snprintf(first, sizeof first, "%s (pid %d on %s, since %02d:%02d:%02d)\n", who,
                     (int)getpid(), host, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (ftruncate(fd, 0) != 0 || pwrite_all(fd, zeros, sizeof zeros, 0) != 0 ||
        pwrite_all(fd, first, (size_t)n, 0) != 0 || fdatasync(fd) != 0) {
        int why = errno;
        close(fd);
        unlink(path);
        errno = why;
        return -1;
    }
    *out = fd;
    return 0;
}

void lens_claim_release(const char *dir, int fd)
{
    char path[4300];
    claim_path(dir, path, sizeof path);
    unlink(path);
    close(fd);
}

/* An fcntl write lock on the whole file, tried for up to 2 s: on NFS an flock is an fcntl
 * lock too, and the holder's would block a waiting rank for the whole run. 1 if taken. */
static int lock_briefly(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    for (int i = 0; i < 200; i++) {
        if (fcntl(fd, F_SETLK, &fl) == 0)
            return 1;
        struct timespec ms = {0, 10000000};
        nanosleep(&ms, NULL);
    }
    return 0;
}

static void unlock(int fd)
{
    struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    fcntl(fd, F_SETLK, &fl);
}

int lens_problem_record(const char *dir, const char *key, const char *text)
{
    char path[4300];
    claim_path(dir, path, sizeof path);
    int saved_errno = errno;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        errno = saved_errno;
        return -1;
    }
    int locked = lock_briefly(fd);
    static char all[CLAIM_BYTES]; /* not on a rank's stack: 32 KiB */
    static char slot[LENS_CLAIM_SLOT];
    ssize_t got = pread(fd, all, sizeof all, 0);
    int known = 0, empty = -1;
    size_t keylen = strlen(key);
    for (int s = 1; got == (ssize_t)sizeof all && s < LENS_CLAIM_SLOTS; s++) {
        const char *at = all + (size_t)s * LENS_CLAIM_SLOT;
        if (!at[0]) {
            if (empty < 0)
                empty = s;
        } else if (strncmp(at, key, keylen) == 0 && at[keylen] == '\t') {
            known = 1;
        }
    }
    if (empty > 0) {
        memset(slot, 0, sizeof slot);
        int n = snprintf(slot, sizeof slot, "%s\t%c\t%s", key, known ? '0' : '1', text);
        if (n >= (int)sizeof slot)
            n = (int)sizeof slot - 1;
        for (int i = 0; i < n; i++)
            if (slot[i] == '\n')
                slot[i] = ' ';
        pwrite_all(fd, slot, sizeof slot, (off_t)empty * LENS_CLAIM_SLOT);
    }
    if (locked)
        unlock(fd);
    close(fd);
    errno = saved_errno;
    return known ? 0 : 1;
}

int lens_problems_read(const char *dir,
                       void (*each)(const char *key, const char *text, int said, void *ctx),
                       void *ctx)
{
    char path[4300];
    claim_path(dir, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    static char slot[LENS_CLAIM_SLOT + 1];
    int count = 0;
    for (int s = 0; s < LENS_CLAIM_SLOTS; s++) {
        size_t n = fread(slot, 1, LENS_CLAIM_SLOT, f);
        if (n != LENS_CLAIM_SLOT)
            break;
        slot[LENS_CLAIM_SLOT] = '\0';
        char *tab = strchr(slot, '\t');
        if (s == 0 || !slot[0] || !tab || !tab[1] || tab[2] != '\t')
            continue;
        *tab = '\0';
        each(slot, tab + 3, tab[1] == '1', ctx);
        count++;
    }
    fclose(f);
    return count;
}
