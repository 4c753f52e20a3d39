/* trc_log.c: the event log's buffer and file (trc_log.h).
 *
 * A buffer is written with pwrite at the file offset of its first byte. A flush swaps the
 * buffers under a sequence count (odd while it swaps) and then writes the full one out; the
 * swapped-in buffer is the one written out a flush earlier. A save reads the count, both
 * buffers' places and sizes, and the count again, and writes both out: the same bytes at
 * the same places as the flushes, so the file is always whole records, possibly followed
 * by one cut short by SIGKILL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trc.h"
#include "trc_log.h"

struct trc_log trc_log = {.fd = -1};
const uint32_t trc_flush_region = R_FLUSH;

int trc_log_open(const char *dir, int rank, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/log", dir);
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || (mkdir(path, 0777) != 0 && errno != EEXIST))
        return -1;
    snprintf(path, sizeof path, "%s/log/%d.events", dir, rank);
    trc_log.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    trc_log.cap = size / 2 < 4 * TRC_CALL_ROOM ? 4 * TRC_CALL_ROOM : size / 2;
    trc_log.buf = trc_log.fd >= 0 ? malloc(trc_log.cap) : NULL;
    trc_log.other = trc_log.buf ? malloc(trc_log.cap) : NULL;
    trc_log.used = trc_log.prev_used = 0;
    trc_log.base = trc_log.prev_base = 0;
    if (trc_log.other)
        return 0;
    free(trc_log.buf);
    trc_log.buf = NULL;
    if (trc_log.fd >= 0)
        close(trc_log.fd);
    trc_log.fd = -1;
    return -1;
}

/* USED bytes of BUF at BASE in the file (async-signal-safe). */
static void write_out(const char *buf, size_t used, int64_t base)
{
    size_t done = 0;
    while (done < used) {
        ssize_t n = pwrite(trc_log.fd, buf + done, used - done, (off_t)(base + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* a full disk: the log ends here, the run goes on */
        done += (size_t)n;
    }
}

static void save_both(void);
static int saves; /* under way (the buffers are freed only when none is) */

void trc_log_save(void)
{
    __atomic_fetch_add(&saves, 1, __ATOMIC_SEQ_CST);
    if (trc_log.fd >= 0)
        save_both();
    __atomic_fetch_sub(&saves, 1, __ATOMIC_SEQ_CST);
}

/* Both buffers written out, from a consistent view of their places. */
static void save_both(void)
{
    for (int tries = 0; tries < 1000; tries++) {
        unsigned gen = __atomic_load_n(&trc_log.gen, __ATOMIC_ACQUIRE);
        if (gen & 1) { /* a swap under way: on the tracing thread itself, give up */
            struct timespec us = {0, 1000};
            nanosleep(&us, NULL);
            continue;
        }
        const char *prev = trc_log.other, *cur = trc_log.buf;
        size_t prev_used = trc_log.prev_used, used = trc_log.used;
        int64_t prev_base = trc_log.prev_base, base = trc_log.base;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&trc_log.gen, __ATOMIC_ACQUIRE) != gen)
            continue;
        write_out(prev, prev_used, prev_base);
        write_out(cur, used, base);
        return;
    }
}

void trc_log_flush(int at_enter)
{
    if (trc_log.fd < 0)
        return;
    uint64_t t0 = trc_now();
    __atomic_fetch_add(&trc_log.gen, 1, __ATOMIC_SEQ_CST);
    char *full = trc_log.buf;
    size_t used = trc_log.used;
    int64_t base = trc_log.base;
    trc_log.prev_used = used;
    trc_log.prev_base = base;
    trc_log.buf = trc_log.other;
    trc_log.other = full;
    trc_log.used = 0;
    trc_log.base = base + (int64_t)used;
    __atomic_fetch_add(&trc_log.gen, 1, __ATOMIC_SEQ_CST);
    write_out(full, used, base);
    if (at_enter) { /* between two calls: the flush is a region of its own */
        trc_put_short(TK_ENTER, t0, trc_flush_region);
        trc_put_short(TK_LEAVE, trc_now(), trc_flush_region);
    }
}

void trc_log_close(void)
{
    if (trc_log.fd < 0)
        return;
    trc_log_flush(0);
    int fd = trc_log.fd;
    trc_log.fd = -1; /* no save starts writing after this; one under way is waited for */
    for (int i = 0; i < 2000 && __atomic_load_n(&saves, __ATOMIC_SEQ_CST) > 0; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    close(fd);
    free(trc_log.buf);
    free(trc_log.other);
    trc_log.buf = trc_log.other = NULL;
    trc_log.cap = 0;
}
