/* SPDX-License-Identifier: BSD-3-Clause */
/* mon.h: the monitor module's state: who sends how much to whom.
 *
 * Per rank, indexed by MPI_COMM_WORLD rank whatever communicator a call used: messages
 * and bytes sent point-to-point (user calls), in collectives (as Open MPI's coll
 * monitoring decomposes them), one-sided (origin side: sent to / received from the
 * target), a 66-bin size histogram per peer for point-to-point (allocated on the first
 * message to that peer), collectives per communicator by kind (one-to-all, all-to-one,
 * all-to-all), and I/O bytes per file. Counters use atomics under MPI_THREAD_MULTIPLE.
 * A flush closes a named phase (snapshot, then reset); MPI_Finalize closes phase "run".
 */
#ifndef MON_H
#define MON_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "commtrack.h"
#include "lens_down.h" /* MPILENS_DOWN: the pass-down of a chained module (chain.c) */
#include "type_sizes.h"

/* Everything below is internal to monitor.so: hidden, so the hot path reaches it without
 * the PLT or the GOT. The MPI_ wrappers keep mpi.h's default visibility. */
#pragma GCC visibility push(hidden)

enum mon_kind { MON_P2P, MON_COLL, MON_RMA_SENT, MON_RMA_RECV, MON_KINDS };
#define MON_BINS 66
enum mon_coll_kind { MON_O2A, MON_A2O, MON_A2A };

extern int mon_on;       /* recording (start/stop) */
extern int mon_threaded; /* MPI_THREAD_MULTIPLE: atomic updates */
/* The inline fast paths' tests, kept with mon_on by mon_set_on: while recording without
 * threads, calls on mon_fast_world (MPI_COMM_WORLD then; else a handle no call passes) may
 * be counted inline, and so may messages to world ranks below mon_fast_peers (the world
 * size then, else 0). One compare with memory each. */
extern MPI_Comm mon_fast_world;
extern unsigned mon_fast_peers;
void mon_set_on(int on);
extern int mon_nprocs, mon_rank;

/* Recording (mon_core.c). peer is a world rank; negative peers are ignored. */
void mon_record(int kind, int peer, uint64_t bytes);
void mon_record_coll_kind(struct lens_comm *rec, int which, uint64_t bytes);
/* `each` bytes from this rank to every other member of the intracommunicator rec, in O(1):
 * kept per communicator and spread over the collective matrix when it is read. */
void mon_record_coll_uniform(struct lens_comm *rec, uint64_t each);
extern struct lens_comm *mon_world; /* MPI_COMM_WORLD's record, no lookup */

/* A communicator's payload: its collective kinds and its pending uniform traffic. */
struct mon_comm_data {
    uint64_t v[6];       /* o2a, a2o, a2a: count and bytes */
    uint64_t uniform[2]; /* messages and bytes to each other member (stored as such: O(p)) */
};
/* The collective row of a communicator's data D: its kinds and its uniform traffic. */
void mon_coll_values(const struct mon_comm_data *d, uint64_t v[8]);
extern struct mon_comm_data *mon_world_data; /* MPI_COMM_WORLD's, allocated at MPI_Init */
/* Uniform all-to-all calls on MPI_COMM_WORLD counted by the inline fast path (calls, bytes
 * to each other rank): two adds per call. mon_fold_world moves them into MPI_COMM_WORLD's
 * payload (its uniform traffic and its all-to-all kind); every reader folds first, and a
 * snapshot reads them through mon_comm_view. */
extern uint64_t mon_world_fast[2];
void mon_fold_world(void);
/* What C's payload D says with the pending fast-path calls added (into *OUT; NULL if D is
 * NULL and nothing is pending). Reads only: safe in a signal handler. */
const struct mon_comm_data *mon_comm_view(const struct lens_comm *c, const struct mon_comm_data *d,
                                          struct mon_comm_data *out);
void mon_record_io(MPI_File fh, int write, uint64_t bytes);
struct mon_file {
    uintptr_t key;
    char name[256];
    uint64_t v[4]; /* reads, bytes read, writes, bytes written */
    struct mon_file *next;
};
/* The files seen, newest first, without the lock (for a snapshot in a signal handler). */
const struct mon_file *mon_files_unlocked(void);
/* mon_snapshot.c: this rank's data saved however the rank ends (mpilens_snapshot.h). */
void mon_snapshot_install(void);
void mon_file_opened(MPI_File fh, const char *name);
void mon_file_closed(MPI_File fh);
/* World rank of rank r of comm (its remote group for intercommunicators), or -1. */
int mon_world_rank_slow(MPI_Comm comm, int r);
/* The same when comm's record rec is already at hand. */
int mon_world_rank_of(const struct lens_comm *rec, MPI_Comm comm, int r);
/* count x the size of type, through PMPI_Type_size (and filling the cache). */
uint64_t mon_bytes_slow(int64_t count, MPI_Datatype type);
/* Forgets every cached type size (a freed handle may come back as another type). */
void mon_forget_types(void);

/* The hot path, inline: a send is a few loads and three adds. Point-to-point traffic to a
 * peer is one record (its messages, bytes and size histogram side by side: one pointer to
 * load), made the first time the peer is sent to; the other kinds are dense arrays. */
struct mon_peer {
    uint64_t messages, bytes;
    uint64_t bins[MON_BINS];
};
extern struct mon_peer *_Atomic *mon_peers;                    /* per world rank, lazily */
extern uint64_t *mon_counts[MON_KINDS], *mon_sizes[MON_KINDS]; /* [MON_P2P]: NULL */
/* Messages and bytes of kind to world rank peer (reads only: safe in a signal handler). */
static inline void mon_cell(int kind, int peer, uint64_t *count, uint64_t *bytes)
{
    if (kind == MON_P2P) {
        const struct mon_peer *r = atomic_load_explicit(&mon_peers[peer], memory_order_acquire);
        *count = r ? __atomic_load_n(&r->messages, __ATOMIC_RELAXED) : 0;
        *bytes = r ? __atomic_load_n(&r->bytes, __ATOMIC_RELAXED) : 0;
    } else {
        *count = __atomic_load_n(&mon_counts[kind][peer], __ATOMIC_RELAXED);
        *bytes = __atomic_load_n(&mon_sizes[kind][peer], __ATOMIC_RELAXED);
    }
}
extern struct lens_type_slot mon_type_cache[LENS_TYPE_SLOTS]; /* used without threads only */
extern struct lens_type_slot mon_last_type;                   /* the last one found there */

/* count x the size of type from the cache (one thread only): 1, or 0 on a miss. */
static inline int mon_bytes_cached(int64_t count, MPI_Datatype type, uint64_t *bytes)
{
    *bytes = 0;
    if (count <= 0)
        return 1;
    if (__builtin_expect(type == mon_last_type.type, 1)) { /* the type of the call before */
        *bytes = (uint64_t)count * mon_last_type.size;
        return 1;
    }
    const struct lens_type_slot *s = lens_type_slot(mon_type_cache, type);
    if (s->type != type)
        return 0;
    mon_last_type = *s;
    *bytes = (uint64_t)count * s->size;
    return 1;
}

static inline uint64_t mon_bytes(int64_t count, MPI_Datatype type)
{
    if (count <= 0)
        return 0;
    uint64_t bytes;
    if (!mon_threaded && lens_type_bytes_cached(mon_type_cache, count, type, &bytes))
        return bytes;
    return mon_bytes_slow(count, type);
}

static inline int mon_world_rank(MPI_Comm comm, int r)
{
    if (r < 0) /* MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT */
        return -1;
    return comm == MPI_COMM_WORLD ? r : mon_world_rank_slow(comm, r);
}

/* The histogram bin of a message size: 0 for empty, k for [2^(k-1), 2^k). */
static inline int mon_bin_of(uint64_t size)
{
    return size == 0 ? 0 : 64 - __builtin_clzll(size);
}

static inline void mon_add(uint64_t *p, uint64_t v)
{
    if (mon_threaded)
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else
        *p += v;
}

/* Any point-to-point message (the general path: other communicators, threads, a type or
 * a peer seen for the first time). */
void mon_count_send_slow(MPI_Comm comm, int dest, int64_t count, MPI_Datatype type);

/* One point-to-point message of count x type to rank dest of comm, in the common case
 * (world communicator, one thread, a known type and peer): three adds, no call, so the
 * wrapper around it needs no stack frame before its tail call. 0: not the common case,
 * nothing counted, use mon_count_send_slow. */
static inline __attribute__((always_inline)) int
mon_count_send_fast(MPI_Comm comm, int dest, int64_t count, MPI_Datatype type)
{
    if (comm != mon_fast_world || (unsigned)dest >= mon_fast_peers)
        return 0;
    uint64_t size;
    if (!mon_bytes_cached(count, type, &size))
        return 0;
    struct mon_peer *r = atomic_load_explicit(&mon_peers[dest], memory_order_relaxed);
    if (!r)
        return 0;
    r->messages += 1;
    r->bytes += size;
    r->bins[mon_bin_of(size)] += 1;
    return 1;
}

/* Persistent requests (mon_persist.c): what one start records is captured when the request
 * is made, by the blocking call's counting with the recording diverted into a list (only
 * the capturing thread's recordings; others go on as usual), and replayed at each start. */
struct mon_captured {
    int what; /* 0: mon_record, 1: mon_record_coll_kind, 2: mon_record_coll_uniform */
    int kind, peer;
    struct lens_comm *rec;
    uint64_t bytes;
};
struct mon_capture {
    pthread_t owner;
    int n, cap;
    struct mon_captured *items;
};
extern struct mon_capture *volatile mon_capture;
void mon_capture_begin(struct mon_capture *c);
void mon_capture_end(void);
/* 1 if this thread is capturing (the recording went into the list), else 0. */
int mon_captured(int what, int kind, int peer, struct lens_comm *rec, uint64_t bytes);
/* Keeps the capture c for the new persistent request req (c's items move to it). */
void mon_persistent_keep(MPI_Request req, struct mon_capture *c);
/* Counting is on: monitoring, or a persistent request being captured. */
static inline int mon_counting(void)
{
    return mon_on || mon_capture != NULL;
}

/* A persistent request's wrapper: makes it, then captures what one start records. */
#define MON_PERSISTENT(NAME, PARAMS, ARGS, REQ, COUNTING)                                          \
    int MPI_##NAME PARAMS                                                                          \
    {                                                                                              \
        int rc_ = mpilens_down_MPI_##NAME ARGS;                                                    \
        if (rc_ == MPI_SUCCESS) {                                                                  \
            struct mon_capture c_;                                                                 \
            mon_capture_begin(&c_);                                                                \
            COUNTING;                                                                              \
            mon_capture_end();                                                                     \
            mon_persistent_keep(*(REQ), &c_);                                                      \
        }                                                                                          \
        return rc_;                                                                                \
    }

/* Control (mon_core.c): also what the C API and MPI_T use. */
void mon_setup(void);
void mon_reset(void);
/* Copies the current counters of kind into counts[] and bytes[] (n world ranks). */
int mon_read(int kind, uint64_t *counts, uint64_t *bytes, int n);
/* The histogram of messages to world rank peer (MON_BINS counters; zeros if none). */
void mon_read_histogram(int peer, uint64_t *bins);
/* Writes PREFIX.RANK.prof as Open MPI's monitoring does (mon_prof.c). 0 or -1. */
int mon_write_prof(const char *prefix);
/* Closes the current phase under name: snapshot, then reset. */
int mon_flush(const char *name);
/* Collective-kind counters of comm: v[0..5] = o2a count, size, a2o count, size, a2a ... */
void mon_coll_kinds(MPI_Comm comm, uint64_t v[6]);

/* New rank of this process in *comm from the traffic so far (mon_place.c). */
int mon_reorder(const void *comm, int *new_rank);

/* Finalize (mon_finalize.c): snapshot, merge, write. */
void mon_finalize(void);

#pragma GCC visibility pop

#endif
