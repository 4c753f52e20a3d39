/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_log.c: the event logs' buffers and files, and the threads that own them (trc_log.h).
 *
 * A buffer is written with pwrite at the file offset of its first byte. A flush swaps the
 * buffers under a sequence count (odd while it swaps) and then writes the full one out; the
 * swapped-in buffer is the one written out a flush earlier. A save reads the count, both
 * buffers' places and sizes, and the count again, and writes both out: the same bytes at
 * the same places as the flushes, so the file is always whole records, possibly followed
 * by one cut short by SIGKILL.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trc.h"
#include "trc_log.h"

const uint32_t trc_flush_region = R_FLUSH;
struct trc_thread trc_unmade = {.log = {.fd = -1}};
__thread struct trc_thread *trc_self __attribute__((tls_model("initial-exec"))) = &trc_unmade;

static struct trc_thread *threads[TRC_MAX_THREADS];
static uint32_t nthreads;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_dir[4096];
static int log_rank;
static size_t log_size;
/* A thread past TRC_MAX_THREADS, or whose file could not be made, writes here: a small
 * window of a large buffer, so that threads sharing it never write past its end, and no
 * file, so that nothing is kept. */
static struct trc_thread sink = {.log = {.fd = -1}};
static char sink_buf[1 << 20], sink_other[1 << 20]; /* static: no allocation to fail */

void trc_log_path(char *out, size_t len, const char *dir, int rank, uint32_t thread)
{
    snprintf(out, len, "%s/log/%d.%u.events", dir, rank, thread);
}

void trc_remove_files(const char *path, int remove_dir)
{
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        char file[4500];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (e->d_name[0] != '.')
            unlink(file);
    }
    if (d)
        closedir(d);
    if (remove_dir)
        rmdir(path);
}

void trc_logs_setup(const char *dir, int rank, size_t size)
{
    snprintf(log_dir, sizeof log_dir, "%s", dir);
    log_rank = rank;
    log_size = size;
    if (!sink.log.buf) {
        sink.log.buf = sink_buf;
        sink.log.other = sink_other;
        sink.log.cap = 4 * TRC_CALL_ROOM;
    }
}

struct trc_thread *trc_thread_new(void)
{
    pthread_mutex_lock(&threads_lock);
    struct trc_thread *t = nthreads < TRC_MAX_THREADS ? calloc(1, sizeof *t) : NULL;
    char path[4300];
    if (t) {
        t->index = nthreads;
        t->next_id = 1;
        trc_log_path(path, sizeof path, log_dir, log_rank, t->index);
        if (trc_log_open(&t->log, path, log_size) == 0) {
            threads[nthreads] = t;
            __atomic_store_n(&nthreads, nthreads + 1, __ATOMIC_RELEASE);
        } else {
            free(t);
            t = NULL;
        }
    }
    pthread_mutex_unlock(&threads_lock);
    trc_self = t ? t : &sink;
    return trc_self;
}

uint32_t trc_thread_count(void)
{
    return __atomic_load_n(&nthreads, __ATOMIC_ACQUIRE);
}

struct trc_thread *trc_thread_at(uint32_t index)
{
    return threads[index];
}

int trc_log_open(struct trc_log *l, const char *path, size_t size)
{
    char dir[4300];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) { /* DIR/trace/log: made by the first log */
        *slash = '\0';
        char *up = strrchr(dir, '/');
        if (up) {
            *up = '\0';
            mkdir(dir, 0777);
            *up = '/';
        }
        mkdir(dir, 0777);
    }
    l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    l->cap = size / 2 < 4 * TRC_CALL_ROOM ? 4 * TRC_CALL_ROOM : size / 2;
    l->buf = l->fd >= 0 ? malloc(l->cap) : NULL;
    l->other = l->buf ? malloc(l->cap) : NULL;
    l->used = l->prev_used = 0;
    l->base = l->prev_base = 0;
    if (l->other)
        return 0;
    free(l->buf);
    l->buf = NULL;
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    return -1;
}

/* USED bytes of BUF at BASE in L's file (async-signal-safe). A failure is remembered in L
 * (the first one: trc_log_failure says it at MPI_Finalize). */
static void write_out(struct trc_log *l, int fd, const char *buf, size_t used, int64_t base)
{
    size_t done = 0;
    while (fd >= 0 && done < used) {
        ssize_t n = pwrite(fd, buf + done, used - done, (off_t)(base + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) { /* a full disk: the log ends here, the run goes on */
            if (!l->write_errno) {
                l->write_failed_at = base + (int64_t)done;
                l->write_errno = n < 0 ? errno : ENOSPC;
            }
            return;
        }
        done += (size_t)n;
    }
}

static void save_both(struct trc_log *l);
static int saves; /* under way (the buffers are freed only when none is) */

void trc_log_save(struct trc_log *l)
{
    __atomic_fetch_add(&saves, 1, __ATOMIC_SEQ_CST);
    if (l->fd >= 0)
        save_both(l);
    __atomic_fetch_sub(&saves, 1, __ATOMIC_SEQ_CST);
}

/* Both buffers written out, from a consistent view of their places. */
static void save_both(struct trc_log *l)
{
    for (int tries = 0; tries < 1000; tries++) {
        unsigned gen = __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE);
        if (gen & 1) { /* a swap under way: on the tracing thread itself, give up */
            struct timespec us = {0, 1000};
            nanosleep(&us, NULL);
            continue;
        }
        const char *prev = l->other, *cur = l->buf;
        size_t prev_used = l->prev_used, used = l->used;
        int64_t prev_base = l->prev_base, base = l->base;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&l->gen, __ATOMIC_ACQUIRE) != gen)
            continue;
        write_out(l, l->fd, prev, prev_used, prev_base);
        write_out(l, l->fd, cur, used, base);
        return;
    }
}

void trc_log_flush(struct trc_log *l, int at_enter)
{
    uint64_t t0 = trc_now();
    __atomic_fetch_add(&l->gen, 1, __ATOMIC_SEQ_CST);
    char *full = l->buf;
    size_t used = l->used;
    int64_t base = l->base;
    l->prev_used = used;
    l->prev_base = base;
    l->buf = l->other;
    l->other = full;
    l->used = 0;
    l->base = base + (int64_t)used;
    __atomic_fetch_add(&l->gen, 1, __ATOMIC_SEQ_CST);
    write_out(l, l->fd, full, used, base);
    /* beside a write, a clock pair costs nothing seen */
    trc_clock_sample();
    if (at_enter) { /* between two calls: the flush is a region of its own */
        trc_put_short(l, l->used, TK_ENTER, t0, trc_flush_region);
        trc_put_short(l, l->used, TK_LEAVE, trc_now(), trc_flush_region);
    }
}

int trc_leave_with_flushed(struct trc_thread *me, int rc, uint32_t region, uint64_t t,
                           uint64_t head, uint64_t bc, uint64_t x, uint64_t y)
{
    trc_log_flush(&me->log, 0);
    trc_put_words(&me->log, me->log.used, t, head, (uint32_t)bc, (uint32_t)(bc >> 32), x, y,
                  region);
    return rc;
}

int trc_leave_at_flushed(struct trc_thread *me, int rc, uint32_t region, uint64_t t)
{
    trc_log_flush(&me->log, 0);
    trc_put_short(&me->log, me->log.used, TK_LEAVE, t, region);
    return rc;
}

void trc_log_close(struct trc_log *l)
{
    if (l->fd < 0)
        return;
    trc_log_flush(l, 0);
    int fd = l->fd;
    l->fd = -1; /* no save starts writing after this; one under way is waited for */
    for (int i = 0; i < 2000 && __atomic_load_n(&saves, __ATOMIC_SEQ_CST) > 0; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (close(fd) != 0 && !l->write_errno) { /* NFS reports a failed write at close */
        l->write_failed_at = l->base;
        l->write_errno = errno;
    }
    /* the buffers stay: a thread still in a call after MPI_Finalize began writes into them,
     * and nothing reads them again */
}
