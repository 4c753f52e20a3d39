/* trc_log.h: the trace module's event log: compact records in a fixed buffer, written to
 * DIR/trace/log/RANK.events when the buffer fills, converted to OTF2 after the run
 * (trc_convert.c: at MPI_Finalize by each rank, or by `mpilens recover` after a run that
 * did not reach it).
 *
 * The hot path writes 16 bytes (Enter, Leave) or 48 bytes (every other event) into the
 * buffer and touches nothing else: no OTF2 call, no allocation, no lookup. Memory stays at
 * two buffers (trace:buffer=SIZE in all, default 4 MiB) however long the run: one is filled
 * while the other is written out. A flush that happens at the start of an MPI call is
 * recorded as its own region, MPILENS_TRACE_FLUSH, so the analysis does not blame the
 * application for it. A record is written whole before `used` covers it, and a buffer is
 * refilled only a whole buffer after it was written out, so a snapshot, from a signal
 * handler or another thread, can write both buffers out at any moment (trc_log_save).
 */
#ifndef TRC_LOG_H
#define TRC_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

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
    TK_KINDS
};

/* One record; Enter and Leave are its first 16 bytes only (TRC_SHORT). */
struct trc_record {
    uint64_t time;
    uint8_t kind, op;
    uint16_t spare;
    uint32_t a;
    uint32_t b, c;
    uint64_t x, y, z;
};
#define TRC_SHORT 16
#define TRC_LONG ((uint32_t)sizeof(struct trc_record))
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
};
extern struct trc_log trc_log;

static inline uint64_t trc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Opens DIR/trace/log/RANK.events (truncated) with two buffers of SIZE/2 bytes; 0 or -1. */
int trc_log_open(const char *dir, int rank, size_t size);
/* Writes the buffer out; AT_ENTER: between calls, recorded as the flush region. */
void trc_log_flush(int at_enter);
/* Async-signal-safe, from any thread: both buffers written where they belong in the file
 * (writing the same bytes twice is harmless); nothing if it interrupts the tracing thread
 * while it swaps the buffers (a few instructions). */
void trc_log_save(void);
/* At the end: the buffer written, the file closed. */
void trc_log_close(void);
/* The region id of the flush (after the MPI regions, before the user regions). */
extern const uint32_t trc_flush_region;

static inline void trc_log_commit(size_t n)
{
    __atomic_signal_fence(__ATOMIC_RELEASE); /* the record is whole before `used` covers it */
    trc_log.used += n;
}

/* A long record at time T, with room made for it. */
static inline void trc_put(uint8_t kind, uint8_t op, uint64_t t, uint32_t a, uint32_t b, uint32_t c,
                           uint64_t x, uint64_t y, uint64_t z)
{
    if (trc_log.used + TRC_LONG > trc_log.cap)
        trc_log_flush(0);
    struct trc_record *r = (struct trc_record *)(trc_log.buf + trc_log.used);
    *r = (struct trc_record){t, kind, op, 0, a, b, c, x, y, z};
    trc_log_commit(TRC_LONG);
}

static inline void trc_put_short(uint8_t kind, uint64_t t, uint32_t region)
{
    struct trc_record *r = (struct trc_record *)(trc_log.buf + trc_log.used);
    r->time = t;
    r->kind = kind;
    r->op = 0;
    r->spare = 0;
    r->a = region;
    trc_log_commit(TRC_SHORT);
}

/* Enter of REGION now (after a flush, if the buffer had too little room left); returns
 * the time stamp the call's other records share. */
static inline uint64_t trc_enter(uint32_t region)
{
    if (trc_log.used + TRC_CALL_ROOM > trc_log.cap)
        trc_log_flush(1);
    uint64_t t = trc_now();
    trc_put_short(TK_ENTER, t, region);
    return t;
}

static inline void trc_leave(uint32_t region)
{
    if (trc_log.used + TRC_SHORT > trc_log.cap)
        trc_log_flush(0);
    trc_put_short(TK_LEAVE, trc_now(), region);
}

#endif
