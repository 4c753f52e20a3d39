/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_log.h: the trace module's event logs, one per thread that calls MPI: compact records
 * in fixed buffers, written to DIR/trace/log/RANK.THREAD.events when a buffer fills (thread
 * 0 is the one that called MPI_Init; each thread becomes an OTF2 location of its rank),
 * converted to OTF2 after the run
 * (trc_convert.c: at MPI_Finalize by each rank, or by `mpilens recover` after a run that
 * did not reach it).
 *
 * The hot path finds its thread's log through one thread-local pointer and writes 16 bytes
 * (Enter, Leave) or 48 bytes (every other event) into its buffer, touching nothing else: no
 * OTF2 call, no allocation, no lookup, no lock. Memory stays at
 * two buffers (trace:buffer=SIZE in all, default 4 MiB) however long the run: one is filled
 * while the other is written out. A flush that happens at the start of an MPI call is
 * recorded as its own region, MPILENS_TRACE_FLUSH, so the analysis does not blame the
 * application for it. A record is written whole before `used` covers it, and a buffer is
 * refilled only a whole buffer after it was written out, so a snapshot, from a signal
 * handler or another thread, can write both buffers out at any moment (trc_log_save).
 */
#ifndef TRC_LOG_H
#define TRC_LOG_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Nothing here is for other libraries: one load fewer for each variable the hot path reads. */
#pragma GCC visibility push(hidden)

enum trc_kind {
    TK_ENTER,             /* a region */
    TK_LEAVE,             /* a region */
    TK_MPI_SEND,          /* a peer, b comm, c tag, x bytes */
    TK_MPI_ISEND,         /* as TK_MPI_SEND, y request */
    TK_MPI_ISEND_DONE,    /* y request */
    TK_MPI_IRECV_REQUEST, /* y request */
    TK_MPI_RECV,          /* a peer, b comm, c tag, x bytes */
    TK_MPI_IRECV,         /* as TK_MPI_RECV, y request */
    TK_COLL_BEGIN,        /* (nothing) */
    TK_COLL_END,          /* op collective, a root, b comm, x sent, y received */
    TK_RMA_WIN_CREATE,    /* a window */
    TK_RMA_WIN_DESTROY,   /* a window */
    TK_RMA_COLL_BEGIN,    /* (nothing) */
    TK_RMA_COLL_END,      /* op collective, a window, b root, c sync level, x sent, y received */
    TK_RMA_GROUP_SYNC,    /* a window, b group, c sync level */
    TK_RMA_ACQUIRE_LOCK,  /* a window, b target, op lock type, x lock id */
    TK_RMA_RELEASE_LOCK,  /* a window, b target, x lock id */
    TK_RMA_SYNC,          /* a window, b target, op sync type */
    TK_RMA_PUT,           /* a window, b target, x bytes, y matching id */
    TK_RMA_GET,           /* a window, b target, x bytes, y matching id */
    TK_RMA_ATOMIC,        /* a window, b target, op atomic type, x sent, y received, z id */
    TK_NBC_REQUEST,       /* op collective, a root, b comm, y request */
    TK_NBC_COMPLETE,      /* op collective, a root, b comm, x sent, y received, z request */
    TK_IO_CREATE,         /* a handle, op access mode, c creation flags */
    TK_IO_DESTROY,        /* a handle */
    TK_IO_BEGIN,          /* a handle, op read/write, c flags, x bytes asked, y matching id */
    TK_IO_ISSUED,         /* a handle, y matching id */
    TK_IO_COMPLETE,       /* a handle, x bytes moved, y matching id */
    TK_KINDS
};

/* One record; Enter, Leave and a collective's begin are its first 16 bytes only (TRC_SHORT,
 * trc_record_size). */
struct trc_record {
    uint64_t time;
    uint8_t kind, op;
    uint16_t flags; /* long records: TRC_WITH_ENTER, TRC_WITH_LEAVE */
    uint32_t a;
    uint32_t b, c;
    uint64_t x, y, z;
};
#define TRC_SHORT 16
#define TRC_LONG ((uint32_t)sizeof(struct trc_record))
/* The bytes of a record of KIND in the log: short for the records that carry a region or
 * nothing but their time (Enter, Leave, a collective's begin), else long. */
static inline size_t trc_record_size(unsigned kind)
{
    return kind == TK_ENTER || kind == TK_LEAVE || kind == TK_COLL_BEGIN ||
                   kind == TK_RMA_COLL_BEGIN
               ? TRC_SHORT
               : TRC_LONG;
}
/* A long record of a point-to-point event may carry its call's Enter (written before the
 * event, at the same time) or its Leave (after it, at the same time), the region in z: one
 * record fewer for the send, the receive and the completion of each message. */
#define TRC_WITH_ENTER 1u
#define TRC_WITH_LEAVE 2u
/* Room left at each Enter for the rest of a call's records: a call flushes in the middle
 * only when it writes more (a Waitall of many requests). */
#define TRC_CALL_ROOM (16 * TRC_LONG)

struct trc_log {
    char *buf; /* the buffer being filled */
    size_t cap;
    volatile size_t used;  /* bytes of whole records in buf */
    volatile int64_t base; /* the file offset of buf[0] */
    char *other;           /* the buffer filled before (written out, or being written) */
    volatile size_t prev_used;
    volatile int64_t prev_base;
    volatile unsigned gen; /* odd while a flush swaps the buffers */
    int fd;
    volatile int write_errno;         /* the first failed write's error (0: none) */
    volatile int64_t write_failed_at; /* ... and the file offset it could not write */
};

/* What the trace keeps per thread. */
struct trc_pending;
struct trc_thread {
    struct trc_log log;
    uint32_t index; /* 0: the thread that called MPI_Init */
    /* requests in flight (trc_wrap.c), numbered per thread as OTF2 wants */
    struct trc_pending *pendings;
    int npending, cap;
    uint64_t next_id;
    /* user regions open (trc_user.c) */
    uint32_t stack[64], depth;
    /* the datatype of the thread's last sized call (trc_bytes), valid for types_generation */
    MPI_Datatype last_type;
    uint64_t last_type_size;
    unsigned types_generation;
};
/* The calling thread's state; until its first traced call, trc_unmade: a state whose log
 * has no room (cap 0), so that a hot wrapper's room test sends the call to its general
 * copy, which makes the thread's own (trc_me) without a test of its own. */
extern __thread struct trc_thread *trc_self __attribute__((tls_model("initial-exec")));
extern struct trc_thread trc_unmade;
/* The calling thread's state, made on its first traced call (a log of its own; past
 * TRC_MAX_THREADS threads, or if its file cannot be made, a log that keeps nothing). */
__attribute__((cold)) struct trc_thread *trc_thread_new(void);
#define TRC_MAX_THREADS 1024
static inline struct trc_thread *trc_me(void)
{
    struct trc_thread *t = trc_self;
    return __builtin_expect(t != &trc_unmade, 1) ? t : trc_thread_new();
}
/* The threads made so far (at finalize and in a snapshot). */
uint32_t trc_thread_count(void);
struct trc_thread *trc_thread_at(uint32_t index);

/* Nanoseconds of CLOCK_MONOTONIC: the archive's clock (clock offsets, start and end). */
static inline uint64_t trc_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* The event log's clock (trc_clock.c): the CPU's own counter where it is invariant
 * (x86-64: the time-stamp counter with CPUID's invariant-TSC bit, whatever clocksource the
 * kernel chose; aarch64: cntvct_el0), else CLOCK_MONOTONIC nanoseconds
 * (MPILENS_TRACE_CLOCK=monotonic forces that). 12 ns a read against 30 for clock_gettime on
 * tsc machines, several times that on kvm-clock ones; six reads a message. Set at MPI_Init
 * (trc_clock_setup), before the first event. The conversion maps ticks to nanoseconds
 * through the (tick, ns) pairs read at MPI_Init and MPI_Finalize (trc_time_ns); pairs read
 * at each flush and snapshot check that map at MPI_Finalize (trc_clock_check). */
extern int trc_use_tsc;
void trc_clock_setup(int rank);
/* A (log clock, ns) pair read together: the log clock between two clock_gettime, the
 * tightest of a few tries (a thread descheduled in between would skew the mapping).
 * Async-signal-safe. */
void trc_clock_pair(uint64_t *log_time, uint64_t *ns);
/* One more pair for trc_clock_check (any thread, async-signal-safe; none on the ns clock). */
void trc_clock_sample(void);
/* The largest distance in ns between the pairs sampled during the run and the linear map
 * through (TICK0, NS0) and (TICK1, NS1), less each pair's own reading error; 0 without
 * samples or on the ns clock (trc_core.c says it when past 1 us per second of run). */
uint32_t trc_clock_check(uint64_t tick0, uint64_t ns0, uint64_t tick1, uint64_t ns1);
static inline uint64_t trc_counter(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}
static inline uint64_t trc_now(void)
{
    if (__builtin_expect(trc_use_tsc, 1))
        return trc_counter();
    return trc_clock_ns();
}
/* The log's clock as a wrapper's copy reads it: TSC 1 in the copy made for a run whose clock
 * is the counter (trc_tsc_on, trc.h), which reads it without testing trc_use_tsc; 0
 * anywhere else (trc_now). */
static inline __attribute__((always_inline)) uint64_t trc_now_as(int tsc)
{
    if (tsc)
        return trc_counter();
    return trc_now();
}

/* Removes the files in directory PATH (not its subdirectories), then PATH if REMOVE_DIR. */
void trc_remove_files(const char *path, int remove_dir);
/* Where the log of thread THREAD of RANK is, under the trace directory DIR. */
void trc_log_path(char *out, size_t len, const char *dir, int rank, uint32_t thread);
/* Starts the logs: DIR (the trace directory), this process's RANK, SIZE bytes per thread. */
void trc_logs_setup(const char *dir, int rank, size_t size);
/* Opens L's file (truncated) with two buffers of SIZE/2 bytes; 0 or -1. */
int trc_log_open(struct trc_log *l, const char *path, size_t size);
/* Writes L's buffer out; AT_ENTER: between calls, recorded as the flush region. */
__attribute__((cold)) void trc_log_flush(struct trc_log *l, int at_enter);
/* Async-signal-safe, from any thread: both buffers written where they belong in the file
 * (writing the same bytes twice is harmless); nothing if it interrupts the tracing thread
 * while it swaps the buffers (a few instructions). */
void trc_log_save(struct trc_log *l);
/* At the end: the buffer written, the file closed. */
void trc_log_close(struct trc_log *l);
/* The region id of the flush (after the MPI regions, before the user regions). */
extern const uint32_t trc_flush_region;

/* A record's 8-byte words as the hot path writes them (whole words, `used` read once and
 * written once: it is volatile for the snapshot): the time, then kind, op, flags and a, then
 * b and c, then x, y, z. The layout of struct trc_record on a little-endian machine. */
union trc_words {
    struct trc_record r;
    uint64_t w[6];
};
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "trc_words packs little-endian words");
_Static_assert(sizeof(union trc_words) == sizeof(struct trc_record), "six words a record");
static inline uint64_t trc_word(uint8_t kind, uint8_t op, uint32_t a)
{
    return kind | (uint64_t)op << 8 | (uint64_t)a << 32;
}
static inline uint64_t trc_word_flagged(uint8_t kind, unsigned flags, uint32_t a)
{
    return kind | (uint64_t)flags << 16 | (uint64_t)a << 32;
}

/* The record just written at offset USED is whole: `used` covers it now. */
static inline void trc_log_commit(struct trc_log *l, size_t used, size_t n)
{
    __atomic_signal_fence(__ATOMIC_RELEASE); /* the record is whole before `used` covers it */
    l->used = used + n;
}

/* Whether L has ROOM bytes left after its `used` (in *USED): a hot wrapper's fast copy
 * writes only when it has; a call that finds too little takes the general copy, which
 * flushes (trc_log_room). */
static inline int trc_log_has_room(struct trc_log *l, size_t room, size_t *used)
{
    *used = l->used;
    return *used + room <= l->cap;
}

/* L's `used`, after a flush if fewer than ROOM bytes are left (AT_ENTER: see trc_log_flush). */
static inline size_t trc_log_room(struct trc_log *l, size_t room, int at_enter)
{
    size_t used;
    if (__builtin_expect(!trc_log_has_room(l, room, &used), 0)) {
        trc_log_flush(l, at_enter);
        used = l->used;
    }
    return used;
}

/* Each writer comes in two forms: X_in(ME, ...) into the log of ME (the calling thread's,
 * trc_me(), found once by a wrapper that writes several records), and X(...). */

/* A long record at offset USED of L (room made): time T, then its kind, op or flags and a
 * (HEAD: trc_word, trc_word_flagged), then b, c, x, y, z. */
static inline void trc_put_words(struct trc_log *l, size_t used, uint64_t t, uint64_t head,
                                 uint32_t b, uint32_t c, uint64_t x, uint64_t y, uint64_t z)
{
    union trc_words *r = (union trc_words *)(l->buf + used);
    r->w[0] = t;
    r->w[1] = head;
    r->w[2] = b | (uint64_t)c << 32;
    r->w[3] = x;
    r->w[4] = y;
    r->w[5] = z;
    trc_log_commit(l, used, TRC_LONG);
}

/* A long record at time T, with room made for it. */
static inline void trc_put_in(struct trc_thread *me, uint8_t kind, uint8_t op, uint64_t t,
                              uint32_t a, uint32_t b, uint32_t c, uint64_t x, uint64_t y,
                              uint64_t z)
{
    trc_put_words(&me->log, trc_log_room(&me->log, TRC_LONG, 0), t, trc_word(kind, op, a), b, c, x,
                  y, z);
}
static inline void trc_put(uint8_t kind, uint8_t op, uint64_t t, uint32_t a, uint32_t b, uint32_t c,
                           uint64_t x, uint64_t y, uint64_t z)
{
    trc_put_in(trc_me(), kind, op, t, a, b, c, x, y, z);
}

/* A point-to-point event of KIND with its call's Enter or Leave in the same record
 * (TRC_WITH_ENTER, TRC_WITH_LEAVE, the call's region in z). */

/* The call of REGION entered now with its event at offset USED, whose room trc_log_room
 * made for the rest of the call (TRC_CALL_ROOM), the clock read after (trc_now_as(TSC));
 * returns the time. */
static inline uint64_t trc_enter_with_at(struct trc_thread *me, size_t used, int tsc,
                                         uint32_t region, uint8_t kind, uint32_t a, uint32_t b,
                                         uint32_t c, uint64_t x, uint64_t y)
{
    uint64_t t = trc_now_as(tsc);
    trc_put_words(&me->log, used, t, trc_word_flagged(kind, TRC_WITH_ENTER, a), b, c, x, y, region);
    return t;
}
/* A call's last record written as its wrapper returns RC (X_return): the flush a full buffer
 * needs (rare) is a call out of line given all the record (X_flushed, trc_log.c), so that a
 * wrapper keeps nothing of its own across a call after the library's. */
__attribute__((cold)) int trc_leave_with_flushed(struct trc_thread *me, int rc, uint32_t region,
                                                 uint64_t t, uint64_t head, uint64_t bc, uint64_t x,
                                                 uint64_t y);
/* The call of REGION left at time T with its last event (KIND, a, b, c, x, y), then
 * returns RC. */
static inline int trc_leave_with_return(struct trc_thread *me, int rc, uint32_t region, uint64_t t,
                                        uint8_t kind, uint32_t a, uint32_t b, uint32_t c,
                                        uint64_t x, uint64_t y)
{
    size_t used;
    uint64_t head = trc_word_flagged(kind, TRC_WITH_LEAVE, a);
    if (__builtin_expect(!trc_log_has_room(&me->log, TRC_LONG, &used), 0))
        return trc_leave_with_flushed(me, rc, region, t, head, b | (uint64_t)c << 32, x, y);
    trc_put_words(&me->log, used, t, head, b, c, x, y, region);
    return rc;
}

/* A short record (Enter, Leave) at offset USED of L, whose room is made. */
static inline void trc_put_short(struct trc_log *l, size_t used, uint8_t kind, uint64_t t,
                                 uint32_t region)
{
    union trc_words *r = (union trc_words *)(l->buf + used);
    r->w[0] = t;
    r->w[1] = trc_word(kind, 0, region);
    trc_log_commit(l, used, TRC_SHORT);
}

/* A record of KIND that carries nothing but its time T (trc_record_size: short). */
static inline void trc_put_mark_in(struct trc_thread *me, uint8_t kind, uint64_t t)
{
    trc_put_short(&me->log, trc_log_room(&me->log, TRC_SHORT, 0), kind, t, 0);
}
static inline void trc_put_mark(uint8_t kind, uint64_t t)
{
    trc_put_mark_in(trc_me(), kind, t);
}

/* Enter of REGION now (after a flush, if the buffer had too little room left; the clock
 * read as trc_now_as(TSC)); returns the time stamp the call's other records share. */
static inline uint64_t trc_enter_at(struct trc_thread *me, size_t used, uint32_t region, int tsc)
{
    uint64_t t = trc_now_as(tsc);
    trc_put_short(&me->log, used, TK_ENTER, t, region);
    return t;
}
static inline uint64_t trc_enter_in(struct trc_thread *me, uint32_t region)
{
    return trc_enter_at(me, trc_log_room(&me->log, TRC_CALL_ROOM, 1), region, 0);
}
static inline uint64_t trc_enter(uint32_t region)
{
    return trc_enter_in(trc_me(), region);
}

/* Leave of REGION at time T (the time of the call's last event: one clock read for both). */
static inline void trc_leave_at_in(struct trc_thread *me, uint32_t region, uint64_t t)
{
    trc_put_short(&me->log, trc_log_room(&me->log, TRC_SHORT, 0), TK_LEAVE, t, region);
}
__attribute__((cold)) int trc_leave_at_flushed(struct trc_thread *me, int rc, uint32_t region,
                                               uint64_t t);
/* trc_leave_at_in, then returns RC (see trc_leave_with_return). */
static inline int trc_leave_at_return(struct trc_thread *me, int rc, uint32_t region, uint64_t t)
{
    size_t used;
    if (__builtin_expect(!trc_log_has_room(&me->log, TRC_SHORT, &used), 0))
        return trc_leave_at_flushed(me, rc, region, t);
    trc_put_short(&me->log, used, TK_LEAVE, t, region);
    return rc;
}
static inline void trc_leave_at(uint32_t region, uint64_t t)
{
    trc_leave_at_in(trc_me(), region, t);
}

static inline void trc_leave(uint32_t region)
{
    trc_leave_at(region, trc_now());
}

#pragma GCC visibility pop

#endif
