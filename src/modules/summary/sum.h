/* SPDX-License-Identifier: BSD-3-Clause */
/* sum.h: the summary module's state: what one small record of a job step needs, and
 * nothing more (docs/summary.md).
 *
 * Per rank: each operation's calls and time per communicator class (MPI_COMM_WORLD, no
 * communicator: completion, one-sided and file calls, up to five sizes of other
 * communicators, the rest), the point-to-point messages sent by size (log2 bins) and by
 * whether the destination shares this rank's host, and a sample of the MPI time by call
 * site: a call that is running when the sampling clock ticks is charged the ticks it spans
 * (the period doubles as samples accumulate), so the hot path pays one compare for the
 * sites. Everything is fixed-size: memory does not grow with the job.
 */
#ifndef SUM_H
#define SUM_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "lens_down.h" /* MPILENS_DOWN: the pass-down of a chained module (chain.c) */
#include "sum_ops.h"
#include "type_sizes.h"

#pragma GCC visibility push(hidden)

#define SUM_LIKELY(x) __builtin_expect(!!(x), 1)
#define SUM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Communicator classes of a cell. */
enum { SUM_WORLD, SUM_NO_COMM, SUM_SIZED, SUM_OTHER = SUM_SIZED + 5, SUM_CLASSES };
struct sum_cell {
    uint64_t calls, ticks;
};
extern struct sum_cell sum_cells[SUM_OPS][SUM_CLASSES];
extern int sum_class_size[SUM_CLASSES]; /* the size of each SUM_SIZED class (0: free) */

/* Recording without threads: sum_fast_world is MPI_COMM_WORLD then (else a handle no call
 * passes); sum_world_peers is the world's size then (else 0). */
extern MPI_Comm sum_fast_world;
extern unsigned sum_world_peers;
extern int sum_on, sum_threaded, sum_rank, sum_size;

/* This host's ranks of MPI_COMM_WORLD: [sum_node_lo, sum_node_lo + sum_node_span) when they
 * are consecutive (the usual block placement), else span 0 and a sorted list (cold). */
extern int sum_node_lo;
extern unsigned sum_node_span;

/* Point-to-point messages sent: by size (bin k holds 2^(k-1) <= bytes < 2^k, bin 1 also 0
 * bytes), and by destination [0] on another host, [1] on this one (with the pending counts
 * of sum_keys). */
#define SUM_BINS 65
extern uint64_t sum_bins[SUM_BINS];
extern uint64_t sum_messages[2], sum_bytes[2];
extern struct lens_type_slot sum_types[LENS_TYPE_SLOTS];

/* Ticks: the time-stamp counter on x86-64 (a CPU without a constant rate is timed by its
 * average rate over the run, sum_seconds_per_tick), elsewhere nanoseconds. */
extern int sum_use_tsc; /* the counter runs at a constant rate (tick_clock.h) */
static inline uint64_t sum_now(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
extern double sum_seconds_per_tick; /* set at MPI_Finalize */

/* The call-site sample: a call that ends at or after sum_next_sample spans sampling ticks.
 * sum_sampled samples the fast path's call, which began at sum_t0, and returns RC (a tail
 * call). */
extern uint64_t sum_next_sample, sum_t0;
void sum_sample(int op, void *return_address, uint64_t t0, uint64_t t1);
int sum_sampled(int rc, int op, void *return_address, uint64_t t1);

/* The cell of OP on COMM (cold: a cached lookup by handle). */
struct sum_cell *sum_cell_of(int op, MPI_Comm comm);
/* A call recorded the general way: threads (atomic adds), not recording, a communicator
 * other than the world's. COMM MPI_COMM_NULL: no communicator. */
void sum_record_slow(int op, MPI_Comm comm, void *return_address, uint64_t t0, uint64_t t1);
/* A point-to-point send of COUNT x TYPE to DEST on COMM, the general way. */
void sum_send_slow(int op, int64_t count, MPI_Datatype type, int dest, MPI_Comm comm);
void sum_forget_comm(MPI_Comm comm); /* at MPI_Comm_free: its handle may come back */
void sum_forget_types(void);         /* at MPI_Type_free */

/* The fast path (recording, no threads, the cell known before the call): the cell's time
 * takes -t0 before the call and +t1 after it, and t0 waits in sum_t0 for a sample, so
 * nothing lives in a register across the call. SUM_FAST_CALL(OP, CLASS, CALL) runs CALL (an
 * int expression) that way into rc, and returns when the call is sampled; the caller
 * checked that the fast path applies. A macro, so that the return address is the wrapper's
 * own. */
#define SUM_FAST_CALL(OP, CLASS, CALL)                                                             \
    do {                                                                                           \
        uint64_t t0_ = sum_now();                                                                  \
        sum_t0 = t0_;                                                                              \
        sum_cells[OP][CLASS].calls++;                                                              \
        sum_cells[OP][CLASS].ticks -= t0_;                                                         \
        rc = CALL;                                                                                 \
        uint64_t t1_ = sum_now();                                                                  \
        sum_cells[OP][CLASS].ticks += t1_;                                                         \
        if (SUM_UNLIKELY(t1_ >= sum_next_sample))                                                  \
            return sum_sampled(rc, OP, __builtin_return_address(0), t1_);                          \
    } while (0)

/* The general path: any thread, any communicator (MPI_COMM_NULL: none), recording or not. */
#define SUM_SLOW_CALL(OP, COMM, CALL)                                                              \
    do {                                                                                           \
        uint64_t t0_ = sum_now();                                                                  \
        rc = CALL;                                                                                 \
        sum_record_slow(OP, COMM, __builtin_return_address(0), t0_, sum_now());                    \
    } while (0)

/* A timed wrapper without a communicator (completions, one-sided, files): inline while
 * recording without threads, else through a cold copy that records the general way. */
#define SUM_TIMED_NOCOMM(NAME, PARAMS, ARGS)                                                       \
    static __attribute__((noinline, cold)) int slow_##NAME PARAMS                                  \
    {                                                                                              \
        int rc;                                                                                    \
        SUM_SLOW_CALL(SUM_OP_##NAME, MPI_COMM_NULL, MPILENS_DOWN(NAME) ARGS);                      \
        return rc;                                                                                 \
    }                                                                                              \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        if (SUM_UNLIKELY(sum_fast_world == (MPI_Comm)0))                                           \
            return slow_##NAME ARGS;                                                               \
        int rc;                                                                                    \
        SUM_FAST_CALL(SUM_OP_##NAME, SUM_NO_COMM, MPILENS_DOWN(NAME) ARGS);                        \
        return rc;                                                                                 \
    }

static inline unsigned long sum_bin_of(uint64_t bytes)
{
    return 64 - (unsigned long)__builtin_clzll(bytes | 1);
}

/* Each send operation's last message shape (datatype, count, its bytes): a send like the
 * last one adds one to its pending count, by destination on another host [0] or this one
 * [1]; the sizes and bytes are added when the shape changes or the figures are read
 * (sum_flush_keys). */
struct sum_key {
    MPI_Datatype type;
    int64_t count;
    uint64_t bytes, pending[2];
};
extern struct sum_key sum_keys[SUM_OPS];
void sum_flush_keys(void);

/* A send of OP, COUNT x TYPE to DEST on COMM, counted inline: 1, or 0 when it needs the
 * general way (threads, another communicator, MPI_PROC_NULL, another shape). */
static inline __attribute__((always_inline)) int
sum_send_fast(int op, int64_t count, MPI_Datatype type, int dest, MPI_Comm comm)
{
    struct sum_key *k = &sum_keys[op];
    if (comm != sum_fast_world || (unsigned)dest >= sum_world_peers || type != k->type ||
        count != k->count)
        return 0;
    if ((unsigned)(dest - sum_node_lo) < sum_node_span)
        k->pending[1]++;
    else
        k->pending[0]++;
    return 1;
}

/* sum_core.c: life */
void sum_start(int provided); /* at MPI_Init: node, clock, recording on */
void sum_stop(void);          /* at MPI_Finalize: recording off, the clock calibrated */
double sum_wall_now(void);    /* CLOCK_REALTIME seconds */
int sum_host_size(void);      /* this host's ranks */
int sum_host_first(void);     /* 1 on the host's lowest world rank */
extern double sum_init_wall,
    sum_final_wall; /* the wall clock at MPI_Init's end, MPI_Finalize's start */

#pragma GCC visibility pop

#endif
