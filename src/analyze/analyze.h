/* SPDX-License-Identifier: BSD-3-Clause */
/* analyze.h: what the files of mpilens-analyze share, all in one struct analysis passed
 * along (no globals between files; OTF2's callbacks get it as their user data): the
 * global definitions read from the trace (defs.c), the replay's state (replay_calls.c: the
 * call being replayed on each location, and the waits charged), and each pattern family's
 * callbacks (replay_p2p.c, replay_coll.c, replay_rma.c), the consistency check
 * (consistency.c) and the results (results.c). analyze.c reads the trace and drives the
 * replay.
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <sqlite3.h>
#include <stdint.h>

#include "trace_defs.h"

struct analysis; /* below: what the files share, passed along */

enum pattern {
    LATE_SENDER,
    LATE_RECEIVER,
    WAIT_NXN,
    WAIT_BARRIER,
    LATE_BROADCAST,
    EARLY_REDUCE,
    EARLY_SCAN,
    WAIT_AT_FENCE,
    EARLY_FENCE,
    LATE_POST,
    EARLY_TRANSFER,
    EARLY_WAIT,
    LATE_COMPLETE,
    MPI_TIME,
    PATTERNS
};
extern const char *const pattern_names[PATTERNS];

/* The global definitions as the replay needs them, indexed by OTF2's ids (defs.c). */
/* What the replay must know of a region, classified once from its name at its definition. */
enum region_kind {
    OTHER_CALL,
    SYNCHRONOUS_SEND,
    WIN_POST,
    WIN_START,
    WIN_COMPLETE,
    WIN_WAIT,
    PARTITIONED /* MPI_Psend_init, MPI_Precv_init: not replayed, counted and said */
};
struct region {
    char *name;
    enum region_kind kind;
    int phase; /* the phase a user region (MPI_Pcontrol) opens; 0: an MPI region */
    int tool;  /* the trace's own work (its buffer flush): not the application's time */
};
struct comm {
    uint32_t group, defined;
    MPI_Comm forward, backward, rma; /* replay copies (MPI_COMM_NULL: not a member) */
};
/* Makes table[id] exist (zeroed), growing the capacity cap (src/common/trace_defs.h). */
#define ENSURE(table, cap, id) TRACE_DEFS_ENSURE(table, cap, id)
/* The members of group g (world ranks) and their number in *n; NULL if g is undefined. */
const uint64_t *group_of(struct analysis *A, uint32_t g, uint32_t *n);
/* Reads the global definitions of READER (the shared reader, then the tables above and
 * this rank's locations); 0, or -1 if they are truncated or corrupt. */
int read_definitions(struct analysis *A, OTF2_Reader *reader, uint64_t *read);
/* The clock offsets of a location's local definitions. */
/* Window W is defined on communicator COMM (replay_rma.c); 0, or -1 out of memory. */
int rma_window_defined(struct analysis *A, uint32_t w, uint32_t comm);
/* The replay communicators and the severity table, once the definitions are read. */
void make_replay_comms(struct analysis *A);
/* Prints the message on rank 0 and ends every rank with status 2. */
void die(const char *fmt, const char *arg);

/* ---- the replay's state (replay_calls.c) ---- */
struct window;

/* The call being replayed on one location (thread) of this rank (MPI calls do not nest on
 * a thread); the analysis's cur_p is the one of the location whose event is being
 * replayed. */
struct call_state {
    uint32_t region;
    uint64_t enter;
    uint64_t remote; /* the timestamp that bounds the wait, 0 if none */
    int pattern;     /* what waits, or -1 */
    int synchronous; /* the region is MPI_Ssend / MPI_Issend */
    int phase;       /* the innermost user region around the call */
    int strict;      /* count the wait only if the remote time falls inside the call */
    int sub_pattern; /* a sub-pattern's interval inside the call, or -1 */
    uint64_t sub_from, sub_until;
    struct window *win; /* one-sided: the window of a transfer or of MPI_Win_start */
    uint32_t target;    /* the transfer's target (rank in the window) */
};

/* Replay state of a window: its communicator, the access epoch's post times and the exit
 * time of the latest transfer toward each target (since the last fence or start). */
struct window {
    uint32_t comm, members;
    uint64_t *post_enter, *last_op, post_max, start_leave;
};
/* Seconds per pattern x region x phase of A (struct analysis), allocated once the
 * definitions are read. */
#define SEVERITY(A, p, r, ph)                                                                      \
    (A)->severity[((size_t)(p) * ((A)->nregions + 1) + (r)) * (A)->nphases + (ph)]
/* Each wait of at least a microsecond, for the picture (`mpilens export` marks them); at
 * most MAX_INTERVALS per rank, the severities count them all. */
struct wait_interval {
    int32_t pattern, region;
    uint64_t from, until; /* timestamps on rank 0's clock */
};
#define MAX_INTERVALS 1000000

/* ---- the analysis: everything the files share, passed along (the event callbacks get it
 * as OTF2's user data) ---- */

struct analysis {
    int rank, size; /* of MPI_COMM_WORLD */
    /* the global definitions as the replay needs them, indexed by OTF2's ids (defs.c) */
    struct trace_defs defs; /* as read (src/common/trace_defs.h) */
    struct region *regions;
    struct comm *comms;
    uint32_t nregions, ncomms; /* 1 + the largest id defined */
    uint32_t regions_cap, comms_cap;
    uint32_t unknown_region;                /* stands for an event's undefined region id */
    int *phase_region, nphases, phases_cap; /* phase -> its user region; 0: outside */
    int phase_stack[64], phase_depth;
    /* per phase while it was this rank's innermost one (the efficiency per phase), seconds:
     * its real time, its computing and its time on the ideal clock (PHASE_REAL, _COMPUTING,
     * _IDEAL: 3 x nphases), counted from phase_since and phase_ideal_since, the real and
     * ideal clocks at the last change of the innermost phase */
    double *phase_seconds;
    uint64_t phase_since, phase_ideal_since;
    /* this rank's locations (its threads: thread 0 is location `rank`); states[i] is the
     * call state of my_locations[i], cur_p the one whose event is being replayed */
    uint64_t *my_locations;
    uint32_t nmy, my_cap;
    struct call_state one_state, *cur_p, *states;
    struct window *windows;
    uint32_t windows_cap;
    uint64_t first_enter, last_leave, trace_length;
    uint64_t partitioned; /* partitioned transfers made (not replayed) */
    /* The ideal network (docs/efficiency.md): this rank's time if MPI cost nothing but the
     * waits its dependencies impose; the computing (outside MPI) it adds up, ns. */
    uint64_t ideal, useful, ideal_from;
    int ideal_started;
    double *severity; /* SEVERITY */
    struct wait_interval *intervals;
    size_t nintervals, intervals_cap;
};

#define PHASE_REAL(A, ph) (A)->phase_seconds[(ph)]
#define PHASE_COMPUTING(A, ph) (A)->phase_seconds[(A)->nphases + (ph)]
#define PHASE_IDEAL(A, ph) (A)->phase_seconds[2 * (A)->nphases + (ph)]

/* A fresh analysis of this rank (MPI initialised). */
void analysis_init(struct analysis *A);

/* The current call waits for REMOTE under PATTERN (the latest remote time wins). */
void later(struct analysis *A, uint64_t remote, int pattern);

/* ---- event callbacks, in the local reader's form ---- */

#define EVENT_ARGS                                                                                 \
    OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a
OTF2_CallbackCode on_enter(EVENT_ARGS, OTF2_RegionRef region);
OTF2_CallbackCode on_leave(EVENT_ARGS, OTF2_RegionRef region);
OTF2_CallbackCode on_send(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len);
OTF2_CallbackCode on_isend(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                           uint64_t id);
OTF2_CallbackCode on_isend_complete(EVENT_ARGS, uint64_t id);
OTF2_CallbackCode on_recv(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len);
OTF2_CallbackCode on_irecv(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                           uint64_t id);
OTF2_CallbackCode on_collective_end(EVENT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received);
OTF2_CallbackCode on_nbc_request(EVENT_ARGS, uint64_t id);
OTF2_CallbackCode on_nbc_complete(EVENT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                  uint32_t root, uint64_t sent, uint64_t received, uint64_t id);
OTF2_CallbackCode on_rma_fence(EVENT_ARGS, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level,
                               OTF2_RmaWinRef w, uint32_t root, uint64_t sent, uint64_t received);
OTF2_CallbackCode on_rma_group_sync(EVENT_ARGS, OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w,
                                    OTF2_GroupRef group);
OTF2_CallbackCode on_rma_put(EVENT_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes,
                             uint64_t id);
OTF2_CallbackCode on_rma_get(EVENT_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes,
                             uint64_t id);
OTF2_CallbackCode on_rma_atomic(EVENT_ARGS, OTF2_RmaWinRef w, uint32_t remote,
                                OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
                                uint64_t id);
/* At the Leave of a call: what one-sided state the call closes (replay_rma.c). */
void rma_leave(struct analysis *A, uint64_t t);
/* Sends two timestamps to PEER without waiting (at most a window of them in flight). */
void send_pair(uint64_t a, uint64_t b, int peer, int tag, MPI_Comm comm);
/* This rank's ideal time now at least T (a message or collective it waited for). */
static inline void ideal_after(struct analysis *A, uint64_t t)
{
    if (t > A->ideal)
        A->ideal = t;
}
/* After the replay: the point-to-point sends still in flight completed (replay_p2p.c). */
void p2p_finish(void);

/* ---- before and after the replay ---- */

/* The consistency check's callbacks for the first pass, and its collective verdict. */
void consistency_callbacks(struct analysis *A, OTF2_EvtReaderCallbacks *ec);
void consistency_verdict(struct analysis *A, const char *run);
/* Rank 0 writes every rank's waits into RUN's database; TRACED: the traced run's length. */
int write_results(struct analysis *A, const char *run, double traced, const uint64_t ideal[3]);

#endif
