/* analyze.c: mpilens-analyze, the parallel replay of a run's OTF2 trace (started by
 * `mpilens analyze RUN` with as many ranks as the run had).
 *
 * Every rank reads only its own location's events, in order, and replays the recorded
 * communication among the ranks, carrying timestamps instead of data (the Scalasca way):
 *  - a send sends its region's enter time to the receiver, on a replay copy of the
 *    communicator with the recorded tag; the receiver gets it at the receive (or at the wait
 *    completing it): Late Sender = the time between entering the receive and the send;
 *  - a synchronous send (MPI_Ssend/Issend) also gets the receiver's enter time back: Late
 *    Receiver = the time the sender waited for the receive to start;
 *  - collectives exchange enter times with the same collective on the replay communicator:
 *    Wait at Barrier, Wait at N x N (max enter - own enter), Late Broadcast (root enter -
 *    own enter, non-roots of one-to-all), Early Reduce (latest enter of the others - root
 *    enter, at the root of all-to-one), Early Scan (latest enter of the ranks up to this
 *    one - own enter, in MPI_Scan and MPI_Exscan).
 * Each waiting time is bounded by the duration of the call and charged to pattern x region
 * x rank; rank 0 writes them into the run database (table waits). The one-sided patterns
 * are replay_rma.c's (included below: it shares this file's replay state).
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock_fix.h"
#include "rundb.h"
#include "trace_reader.h"

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
static const char *const pattern_names[PATTERNS] = {"Late Sender",    "Late Receiver",
                                                    "Wait at N x N",  "Wait at Barrier",
                                                    "Late Broadcast", "Early Reduce",
                                                    "Early Scan",     "Wait at Fence",
                                                    "Early Fence",    "Late Post",
                                                    "Early Transfer", "Early Wait",
                                                    "Late Complete",  "MPI"};
static int rank, size;

/* The global definitions, in tables indexed by OTF2's (dense) ids and grown as definitions
 * arrive; an id above ANALYZE_MAX_ID is taken for corruption (the reader stops). */
#define ANALYZE_MAX_ID (1u << 24)
/* What the replay must know of a region, classified once from its name at its definition. */
enum region_kind { OTHER_CALL, SYNCHRONOUS_SEND, WIN_POST, WIN_START, WIN_COMPLETE, WIN_WAIT };
struct region {
    char *name;
    enum region_kind kind;
    int phase; /* the phase a user region (MPI_Pcontrol) opens; 0: an MPI region */
    int tool;  /* the trace's own work (its buffer flush): not the application's time */
};
struct group {
    uint64_t *members; /* world ranks */
    uint32_t size;
};
struct comm {
    uint32_t group, defined;
    MPI_Comm forward, backward, rma; /* replay copies (MPI_COMM_NULL: not a member) */
};
static char **strings;
static struct region *regions;
static struct group *groups;
static struct comm *comms;
static uint32_t nstrings, nregions, ngroups, ncomms; /* 1 + the largest id defined */
static uint32_t strings_cap, regions_cap, groups_cap, comms_cap;
static uint32_t unknown_region;                    /* stands for an event's undefined region id */
static int *phase_region, nphases = 1, phases_cap; /* phase -> its user region; 0: outside */
static int phase_stack[64], phase_depth;
/* Seconds per pattern x region x phase, allocated once the definitions are read. */
static double *severity;
#define SEVERITY(p, r, ph) severity[((size_t)(p) * (nregions + 1) + (r)) * nphases + (ph)]
static struct clock_fix clock_fix; /* this rank's clock to rank 0's */

/* Makes (*table)[id] exist (zeroed), doubling the capacity *cap; 0, or -1 if id is beyond
 * ANALYZE_MAX_ID or memory ran out. */
static int ensure(void **table, uint32_t *cap, uint32_t id, size_t elem)
{
    if (id >= ANALYZE_MAX_ID)
        return -1;
    if (id < *cap)
        return 0;
    uint32_t want = *cap ? *cap : 64;
    while (want <= id)
        want *= 2;
    void *t = realloc(*table, (size_t)want * elem);
    if (!t)
        return -1;
    memset((char *)t + (size_t)*cap * elem, 0, (size_t)(want - *cap) * elem);
    *table = t;
    *cap = want;
    return 0;
}
#define ENSURE(table, cap, id) ensure((void **)&(table), &(cap), (id), sizeof *(table))

/* The members of group g (world ranks) and their number in *n; NULL if g is undefined. */
static const uint64_t *group_of(uint32_t g, uint32_t *n)
{
    *n = g < ngroups && groups[g].members ? groups[g].size : 0;
    return *n ? groups[g].members : NULL;
}

/* The call being replayed on one location (thread) of this rank (MPI calls do not nest on
 * a thread); `cur` is the one of the location whose event is being replayed. */
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
static struct call_state one_state, *cur_p = &one_state, *states;
#define cur (*cur_p)
/* This rank's locations (its threads: thread 0 is location `rank`), from the global
 * definitions; states[i] is the call state of my_locations[i]. */
static uint64_t *my_locations;
static uint32_t nmy, my_cap;

/* Replay state of a window: its communicator, the access epoch's post times and the exit
 * time of the latest transfer toward each target (since the last fence or start). */
struct window {
    uint32_t comm, members;
    uint64_t *post_enter, *last_op, post_max, start_leave;
};
static struct window *windows;
static uint32_t windows_cap;
static uint64_t first_enter = UINT64_MAX, last_leave, trace_length;
static uint64_t (*pending_send)[4]; /* id, peer, comm, tag of synchronous isends */
static size_t npending;
static MPI_Request *sends; /* the replay's sends in flight (send_pair) */
static uint64_t (*payloads)[2];
static int *free_slots, nfree;

static void rma_leave(uint64_t t); /* replay_rma.c */

static void later(uint64_t remote, int pattern)
{
    if (remote > cur.remote || cur.pattern < 0) {
        cur.remote = remote;
        cur.pattern = pattern;
    }
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)pos;
    (void)l, (void)u, (void)a;
    t = clock_fix_apply(&clock_fix, t);
    if (region < nregions && regions[region].tool)
        return OTF2_CALLBACK_SUCCESS;
    if (region < nregions && regions[region].phase) {
        if (phase_depth < 64)
            phase_stack[phase_depth] = regions[region].phase;
        phase_depth++;
        return OTF2_CALLBACK_SUCCESS;
    }
    cur.phase = phase_depth > 0 && phase_depth <= 64 ? phase_stack[phase_depth - 1] : 0;
    cur.region = region < nregions ? region : unknown_region;
    cur.enter = t;
    cur.remote = 0;
    cur.pattern = -1;
    cur.strict = 0;
    cur.sub_pattern = -1;
    cur.win = NULL;
    cur.synchronous = regions[cur.region].kind == SYNCHRONOUS_SEND;
    if (t < first_enter)
        first_enter = t;
    return OTF2_CALLBACK_SUCCESS;
}

/* Each wait of at least a microsecond, for the picture (`mpilens export` marks them); at
 * most MAX_INTERVALS per rank, the severities count them all. */
struct wait_interval {
    int32_t pattern, region;
    uint64_t from, until; /* timestamps on rank 0's clock */
};
#define MAX_INTERVALS 1000000
static struct wait_interval *intervals;
static size_t nintervals, intervals_cap;

static void charge(int pattern, uint64_t from, uint64_t until)
{
    SEVERITY(pattern, cur.region, cur.phase) += (until - from) * 1e-9;
    if (until - from < 1000 || nintervals >= MAX_INTERVALS)
        return;
    if (nintervals == intervals_cap) {
        intervals_cap = intervals_cap ? 2 * intervals_cap : 1024;
        intervals = realloc(intervals, intervals_cap * sizeof *intervals);
    }
    intervals[nintervals++] = (struct wait_interval){pattern, (int32_t)cur.region, from, until};
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)pos;
    (void)l, (void)u, (void)a;
    t = clock_fix_apply(&clock_fix, t);
    if (region < nregions && regions[region].tool)
        return OTF2_CALLBACK_SUCCESS;
    if (region < nregions && regions[region].phase) {
        phase_depth -= phase_depth > 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    SEVERITY(MPI_TIME, cur.region, cur.phase) += (t - cur.enter) * 1e-9;
    if (cur.pattern >= 0 && cur.remote > cur.enter && (!cur.strict || cur.remote <= t)) {
        uint64_t until = cur.remote < t ? cur.remote : t;
        charge(cur.pattern, cur.enter, until);
    }
    if (cur.sub_pattern >= 0) {
        uint64_t from = cur.sub_from > cur.enter ? cur.sub_from : cur.enter;
        uint64_t until = cur.sub_until < t ? cur.sub_until : t;
        if (until > from)
            charge(cur.sub_pattern, from, until);
    }
    rma_leave(t);
    cur.pattern = -1;
    last_leave = t;
    return OTF2_CALLBACK_SUCCESS;
}

/* Sends two timestamps without waiting, at most SEND_WINDOW in flight: when the window is
 * full, the replay waits for some to complete (MPI_Waitsome). A sender far ahead of its
 * receiver would otherwise pile up requests the library walks at every progress call
 * (quadratic time) and memory without bound. The messages are small enough to be sent
 * eagerly, so they complete as the receiver's library makes progress in any call. */
#define SEND_WINDOW 256
static void send_pair(uint64_t a, uint64_t b, int peer, int tag, MPI_Comm comm)
{
    if (!sends) {
        sends = malloc(SEND_WINDOW * sizeof *sends);
        payloads = malloc(SEND_WINDOW * sizeof *payloads);
        free_slots = malloc(SEND_WINDOW * sizeof *free_slots);
        for (int i = 0; i < SEND_WINDOW; i++) {
            sends[i] = MPI_REQUEST_NULL;
            free_slots[nfree++] = i;
        }
    }
    if (nfree == 0) {
        int done = 0;
        static MPI_Status statuses[SEND_WINDOW]; /* (MPICH's STATUSES_IGNORE upsets GCC) */
        MPI_Waitsome(SEND_WINDOW, sends, &done, free_slots, statuses);
        nfree = done > 0 ? done : 0;
    }
    int slot = free_slots[--nfree];
    payloads[slot][0] = a;
    payloads[slot][1] = b;
    MPI_Isend(payloads[slot], 2, MPI_UINT64_T, peer, tag, comm, &sends[slot]);
}

static void send_time(uint32_t peer, OTF2_CommRef comm, uint32_t tag)
{
    send_pair(cur.enter, (uint64_t)cur.synchronous, (int)peer, (int)tag, comms[comm].forward);
}

/* For a synchronous send: the receiver's enter time, sent back when it received. */
static void receiver_echo(uint32_t peer, OTF2_CommRef comm, uint32_t tag)
{
    uint64_t remote;
    MPI_Recv(&remote, 1, MPI_UINT64_T, (int)peer, (int)tag, comms[comm].backward,
             MPI_STATUS_IGNORE);
    later(remote, LATE_RECEIVER);
}

static OTF2_CallbackCode on_send(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)pos;
    (void)l, (void)t, (void)u, (void)a, (void)len;
    if (comm >= ncomms)
        return OTF2_CALLBACK_SUCCESS;
    send_time(peer, comm, tag);
    if (cur.synchronous)
        receiver_echo(peer, comm, tag);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t id)
{
    (void)pos;
    (void)l, (void)t, (void)u, (void)a, (void)len;
    if (comm >= ncomms)
        return OTF2_CALLBACK_SUCCESS;
    send_time(peer, comm, tag);
    if (cur.synchronous) {
        pending_send = realloc(pending_send, (npending + 1) * sizeof *pending_send);
        pending_send[npending][0] = id;
        pending_send[npending][1] = peer;
        pending_send[npending][2] = comm;
        pending_send[npending++][3] = tag;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos,
                                           void *u, OTF2_AttributeList *a, uint64_t id)
{
    (void)pos;
    (void)l, (void)t, (void)u, (void)a;
    for (size_t i = 0; i < npending; i++) {
        if (pending_send[i][0] == id) {
            receiver_echo((uint32_t)pending_send[i][1], (OTF2_CommRef)pending_send[i][2],
                          (uint32_t)pending_send[i][3]);
            memcpy(pending_send[i], pending_send[--npending], sizeof *pending_send);
            break; /* the table holds the synchronous sends in flight only */
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void receive(uint32_t peer, OTF2_CommRef comm, uint32_t tag)
{
    uint64_t p[2];
    MPI_Recv(p, 2, MPI_UINT64_T, (int)peer, (int)tag, comms[comm].forward, MPI_STATUS_IGNORE);
    later(p[0], LATE_SENDER);
    if (p[1])
        MPI_Send(&cur.enter, 1, MPI_UINT64_T, (int)peer, (int)tag, comms[comm].backward);
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                 OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)pos;
    (void)l, (void)t, (void)u, (void)a, (void)len;
    if (comm < ncomms)
        receive(peer, comm, tag);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t id)
{
    (void)id;
    return on_recv(l, t, pos, u, a, peer, comm, tag, len);
}

static OTF2_CallbackCode on_collective_end(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos,
                                           void *u, OTF2_AttributeList *a, OTF2_CollectiveOp op,
                                           OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                           uint64_t received)
{
    (void)pos;
    (void)l, (void)t, (void)u, (void)a, (void)sent, (void)received;
    if (comm >= ncomms)
        return OTF2_CALLBACK_SUCCESS;
    MPI_Comm c = comms[comm].forward;
    uint64_t mine = cur.enter, other = 0;
    int me;
    MPI_Comm_rank(c, &me);
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        MPI_Allreduce(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, c);
        later(other, WAIT_BARRIER);
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        other = mine;
        MPI_Bcast(&other, 1, MPI_UINT64_T, (int)root, c);
        if ((uint32_t)me != root)
            later(other, LATE_BROADCAST);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: {
        uint64_t contribution = (uint32_t)me == root ? 0 : mine;
        MPI_Reduce(&contribution, &other, 1, MPI_UINT64_T, MPI_MAX, (int)root, c);
        if ((uint32_t)me == root)
            later(other, EARLY_REDUCE);
        break;
    }
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN: /* waits for the ranks before it */
        MPI_Scan(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, c);
        later(other, EARLY_SCAN);
        break;
    default: /* all-to-all kinds */
        MPI_Allreduce(&mine, &other, 1, MPI_UINT64_T, MPI_MAX, c);
        later(other, WAIT_NXN);
    }
    return OTF2_CALLBACK_SUCCESS;
}

#include "replay_rma.c"

static OTF2_CallbackCode on_clock_offset(void *u, OTF2_TimeStamp time, int64_t offset,
                                         double deviation)
{
    (void)u, (void)deviation;
    clock_fix_add(&clock_fix, time, offset);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    (void)u, (void)resolution, (void)offset, (void)realtime;
    trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *s)
{
    (void)u;
    if (ENSURE(strings, strings_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    free(strings[self]);
    strings[self] = strdup(s ? s : "");
    if (self + 1 > nstrings)
        nstrings = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static const char *string(OTF2_StringRef id)
{
    return id < nstrings && strings[id] ? strings[id] : "";
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    (void)u, (void)name, (void)type, (void)events;
    if (group != (OTF2_LocationGroupRef)rank)
        return OTF2_CALLBACK_SUCCESS;
    if (ENSURE(my_locations, my_cap, nmy) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    my_locations[nmy++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef c, OTF2_StringRef d, OTF2_RegionRole r,
                                   OTF2_Paradigm p, OTF2_RegionFlag f, OTF2_StringRef file,
                                   uint32_t b, uint32_t e)
{
    (void)u, (void)c, (void)d, (void)r, (void)f, (void)file, (void)b, (void)e;
    static const struct {
        const char *name;
        enum region_kind kind;
    } kinds[] = {{"MPI_Ssend", SYNCHRONOUS_SEND},    {"MPI_Issend", SYNCHRONOUS_SEND},
                 {"MPI_Win_post", WIN_POST},         {"MPI_Win_start", WIN_START},
                 {"MPI_Win_complete", WIN_COMPLETE}, {"MPI_Win_wait", WIN_WAIT}};
    if (ENSURE(regions, regions_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    struct region *reg = &regions[self];
    free(reg->name);
    reg->name = strdup(string(name));
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (strcmp(reg->name, kinds[k].name) == 0)
            reg->kind = kinds[k].kind;
    reg->tool = p == OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    if (p == OTF2_PARADIGM_USER && !reg->phase) {
        if (ensure((void **)&phase_region, (uint32_t *)&phases_cap, (uint32_t)nphases,
                   sizeof *phase_region) != 0)
            return OTF2_CALLBACK_INTERRUPT;
        phase_region[nphases] = (int)self;
        reg->phase = nphases++;
    }
    if (self + 1 > nregions)
        nregions = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm p, OTF2_GroupFlag f,
                                  uint32_t n, const uint64_t *members)
{
    (void)u, (void)name, (void)type, (void)p, (void)f;
    if (ENSURE(groups, groups_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    free(groups[self].members);
    groups[self].members = malloc((n + 1) * sizeof(uint64_t));
    if (!groups[self].members)
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(groups[self].members, members, n * sizeof(uint64_t));
    groups[self].size = n;
    if (self + 1 > ngroups)
        ngroups = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)u, (void)name, (void)parent, (void)flags;
    if (ENSURE(comms, comms_cap, self) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    comms[self].group = group;
    comms[self].defined = 1;
    if (self + 1 > ncomms)
        ncomms = self + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static void die(const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "mpilens: analyze: ");
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* Replay communicators: a forward, a backward and a one-sided copy of every traced
 * communicator this rank is a member of (the same split on every rank: all read the same
 * global definitions). Then the severity table, sized by the definitions. */
static void make_replay_comms(void)
{
    for (uint32_t c = 0; c < ncomms; c++) {
        uint32_t n;
        const uint64_t *members = comms[c].defined ? group_of(comms[c].group, &n) : NULL;
        int position = MPI_UNDEFINED;
        for (uint32_t i = 0; members && i < n; i++)
            if (members[i] == (uint64_t)rank)
                position = (int)i;
        comms[c].forward = comms[c].backward = comms[c].rma = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, position == MPI_UNDEFINED ? MPI_UNDEFINED : 0, position,
                       &comms[c].forward);
        if (comms[c].forward != MPI_COMM_NULL) {
            MPI_Comm_dup(comms[c].forward, &comms[c].backward);
            MPI_Comm_dup(comms[c].forward, &comms[c].rma);
        }
    }
    unknown_region = nregions;
    if (ENSURE(regions, regions_cap, unknown_region) != 0)
        die("out of memory for %s regions", "the");
    regions[unknown_region].name = strdup("(undefined region)");
    severity = calloc((size_t)PATTERNS * (nregions + 1) * nphases, sizeof *severity);
    if (!severity)
        die("out of memory for the severity table%s", "");
}

/* One nonzero severity, as it travels to rank 0. */
struct wait_entry {
    int32_t pattern, region, phase;
    double seconds;
};

/* Gathers every rank's BYTES of MINE on rank 0: returns them there (malloc'ed), with
 * per-rank byte counts and offsets in *counts and *displs; NULL elsewhere. */
static void *gather_bytes(const void *mine, size_t bytes, int **counts, int **displs)
{
    int n = (int)bytes, total = 0;
    *counts = rank == 0 ? calloc(size, sizeof **counts) : NULL;
    *displs = rank == 0 ? calloc(size, sizeof **displs) : NULL;
    MPI_Gather(&n, 1, MPI_INT, *counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size; r++) {
        (*displs)[r] = total;
        total += (*counts)[r];
    }
    char *all = rank == 0 ? malloc((size_t)total + 1) : NULL;
    MPI_Gatherv(mine, n, MPI_BYTE, all, *counts, *displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    return all;
}

static int write_intervals(sqlite3 *db, const struct wait_interval *all, const int *counts,
                           const int *displs)
{
    sqlite3_stmt *st;
    int rc = 0;
    sqlite3_prepare_v2(db, "INSERT INTO wait_intervals VALUES (?, ?, ?, ?, ?)", -1, &st, NULL);
    for (int r = 0; r < size && rc == 0; r++)
        for (int i = 0; i < counts[r] / (int)sizeof *all; i++) {
            const struct wait_interval *w = &all[displs[r] / (int)sizeof *all + i];
            sqlite3_bind_int(st, 1, r);
            sqlite3_bind_text(st, 2, pattern_names[w->pattern], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 3, regions[w->region].name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 4, (sqlite3_int64)w->from);
            sqlite3_bind_int64(st, 5, (sqlite3_int64)w->until);
            rc |= sqlite3_step(st) != SQLITE_DONE;
            sqlite3_reset(st);
        }
    sqlite3_finalize(st);
    return rc;
}

/* Rank 0 gathers every rank's nonzero severities, its wait intervals and the traced time,
 * and writes them into the run database: tables waits, wait_intervals and wait_times. */
static int write_results(const char *run, double traced)
{
    struct wait_entry *mine = NULL;
    int n = 0;
    for (int p = 0; p < PATTERNS; p++)
        for (uint32_t g = 0; g <= nregions; g++)
            for (int ph = 0; ph < nphases; ph++)
                if (SEVERITY(p, g, ph) > 0) {
                    mine = realloc(mine, (n + 1) * sizeof *mine);
                    mine[n++] = (struct wait_entry){p, (int32_t)g, ph, SEVERITY(p, g, ph)};
                }
    int *counts, *displs, *icounts, *idispls;
    double *times = rank == 0 ? calloc(size, sizeof *times) : NULL;
    struct wait_entry *all = gather_bytes(mine, n * sizeof *mine, &counts, &displs);
    struct wait_interval *spans =
        gather_bytes(intervals, nintervals * sizeof *intervals, &icounts, &idispls);
    MPI_Gather(&traced, 1, MPI_DOUBLE, times, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(mine);
    if (rank != 0)
        return 0;
    struct rundb db;
    char err[1024];
    if (rundb_begin(&db, run, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: analyze: %s\n", err);
        return 2;
    }
    int rc = rundb_exec(
        db.db,
        "DROP TABLE IF EXISTS waits; DROP TABLE IF EXISTS wait_times;"
        "DROP TABLE IF EXISTS wait_intervals;"
        "CREATE TABLE waits (pattern TEXT, region TEXT, rank INTEGER, seconds REAL, phase TEXT);"
        "CREATE TABLE wait_times (rank INTEGER PRIMARY KEY, seconds REAL);"
        "CREATE TABLE wait_intervals (rank INTEGER, pattern TEXT, region TEXT, start INTEGER,"
        "  end INTEGER);",
        err, sizeof err);
    if (rc == 0)
        rc = write_intervals(db.db, spans, icounts, idispls);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db.db, "INSERT INTO waits VALUES (?, ?, ?, ?, ?)", -1, &st, NULL);
    for (int r = 0; r < size && rc == 0; r++)
        for (int i = 0; i < counts[r] / (int)sizeof *all; i++) {
            const struct wait_entry *w = &all[displs[r] / (int)sizeof *all + i];
            sqlite3_bind_text(st, 1, pattern_names[w->pattern], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, regions[w->region].name, -1, SQLITE_STATIC);
            sqlite3_bind_int(st, 3, r);
            sqlite3_bind_double(st, 4, w->seconds);
            if (w->phase)
                sqlite3_bind_text(st, 5, regions[phase_region[w->phase]].name, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(st, 5);
            rc |= sqlite3_step(st) != SQLITE_DONE;
            sqlite3_reset(st);
        }
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db.db, "INSERT INTO wait_times VALUES (?, ?)", -1, &st, NULL);
    for (int r = 0; r < size && rc == 0; r++) {
        sqlite3_bind_int(st, 1, r);
        sqlite3_bind_double(st, 2, times[r]);
        rc |= sqlite3_step(st) != SQLITE_DONE;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != 0) {
        rundb_abort(&db);
        return 2;
    }
    return rundb_commit(&db, err, sizeof err) == 0 ? 0 : 2;
}

/* This rank's event reader (with its clock offsets read from its definitions), or NULL. */
/* This rank's event reader, after its local definitions (clock offsets) are read; NULL on
 * failure, with *defs_bad set and *defs_read records read if the definitions failed. */
/* Opens the events of this rank's locations (its threads) in READER: their local
 * definitions read first (clock offsets, mapping tables), then an event reader each, in
 * READERS[nmy]. 0, or -1 (*DEFS_BAD: the definitions, of which *DEFS_READ were read). */
static int open_events(OTF2_Reader *reader, OTF2_EvtReader **readers, int *defs_bad,
                       uint64_t *defs_read)
{
    *defs_bad = 0;
    for (uint32_t i = 0; i < nmy; i++)
        OTF2_Reader_SelectLocation(reader, my_locations[i]);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS)
        return -1;
    for (uint32_t i = 0; i < nmy; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(reader, my_locations[i]);
        if (!dr)
            continue;
        OTF2_DefReaderCallbacks *dc = OTF2_DefReaderCallbacks_New();
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(dc, on_clock_offset);
        OTF2_Reader_RegisterDefCallbacks(reader, dr, dc, NULL);
        OTF2_DefReaderCallbacks_Delete(dc);
        clock_fix.points = 0; /* the threads of a rank share its clock offsets */
        uint64_t n = 0;
        int bad = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n) != OTF2_SUCCESS;
        OTF2_Reader_CloseDefReader(reader, dr);
        *defs_read = n;
        if (bad) {
            OTF2_Reader_CloseDefFiles(reader);
            *defs_bad = 1;
            return -1;
        }
    }
    OTF2_Reader_CloseDefFiles(reader);
    if (OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS)
        return -1;
    for (uint32_t i = 0; i < nmy; i++)
        if (!(readers[i] = OTF2_Reader_GetEvtReader(reader, my_locations[i])))
            return -1;
    return 0;
}

/* ---- the replay reads this rank's threads merged in time (OTF2's global reader): each
 * callback of the local form, called with the state of its event's location ---- */

static struct call_state *state_of(OTF2_LocationRef l)
{
    for (uint32_t i = 0; i < nmy; i++)
        if (my_locations[i] == l)
            return &states[i];
    return &one_state;
}

#define UNPAREN(...) __VA_ARGS__
#define MERGED(NAME, PARAMS, ARGS)                                                                 \
    static OTF2_CallbackCode merged_##NAME(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,          \
                                           OTF2_AttributeList *a, UNPAREN PARAMS)                  \
    {                                                                                              \
        cur_p = state_of(l);                                                                       \
        return NAME(l, t, 0, u, a, UNPAREN ARGS);                                                  \
    }
MERGED(on_enter, (OTF2_RegionRef r), (r))
MERGED(on_leave, (OTF2_RegionRef r), (r))
MERGED(on_send, (uint32_t p, OTF2_CommRef c, uint32_t tag, uint64_t n), (p, c, tag, n))
MERGED(on_isend, (uint32_t p, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t id),
       (p, c, tag, n, id))
MERGED(on_isend_complete, (uint64_t id), (id))
MERGED(on_recv, (uint32_t p, OTF2_CommRef c, uint32_t tag, uint64_t n), (p, c, tag, n))
MERGED(on_irecv, (uint32_t p, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t id),
       (p, c, tag, n, id))
MERGED(on_collective_end,
       (OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t got),
       (op, c, root, sent, got))
MERGED(on_rma_fence,
       (OTF2_CollectiveOp op, OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w, uint32_t root, uint64_t sent,
        uint64_t got),
       (op, lvl, w, root, sent, got))
MERGED(on_rma_group_sync, (OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w, OTF2_GroupRef g), (lvl, w, g))
MERGED(on_rma_put, (OTF2_RmaWinRef w, uint32_t remote, uint64_t n, uint64_t id), (w, remote, n, id))
MERGED(on_rma_get, (OTF2_RmaWinRef w, uint32_t remote, uint64_t n, uint64_t id), (w, remote, n, id))
MERGED(on_rma_atomic,
       (OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaAtomicType type, uint64_t sent, uint64_t got,
        uint64_t id),
       (w, remote, type, sent, got, id))

/* Replays this rank's events (all its threads, in time order); 0, or -1 if reading failed. */
static int replay(OTF2_Reader *reader, uint64_t *events)
{
    OTF2_GlobalEvtReader *gr = OTF2_Reader_GetGlobalEvtReader(reader);
    if (!gr)
        return -1;
    OTF2_GlobalEvtReaderCallbacks *ec = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ec, merged_on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ec, merged_on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ec, merged_on_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(ec, merged_on_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(ec, merged_on_isend_complete);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ec, merged_on_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(ec, merged_on_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, merged_on_collective_end);
    OTF2_GlobalEvtReaderCallbacks_SetRmaCollectiveEndCallback(ec, merged_on_rma_fence);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGroupSyncCallback(ec, merged_on_rma_group_sync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(ec, merged_on_rma_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(ec, merged_on_rma_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaAtomicCallback(ec, merged_on_rma_atomic);
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader, gr, ec, NULL);
    OTF2_GlobalEvtReaderCallbacks_Delete(ec);
    int bad = OTF2_Reader_ReadAllGlobalEvents(reader, gr, events) != OTF2_SUCCESS;
    OTF2_Reader_CloseGlobalEvtReader(reader, gr);
    return bad ? -1 : 0;
}

/* Collective: stops every rank when one rank's trace could not be read, naming the first
 * such rank's file and where in it reading stopped. bad: 0 fine, 1 its local definitions,
 * 2 its events; read: the records read before. */
static void check_events(const char *run, uint64_t chunk_size, int bad, uint64_t events_read)
{
    int kind = bad;
    int first_bad = bad ? rank : size, who = size;
    MPI_Allreduce(&first_bad, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (who == size)
        return;
    uint64_t read[2] = {events_read, (uint64_t)kind};
    MPI_Bcast(read, 2, MPI_UINT64_T, who, MPI_COMM_WORLD);
    char file[4200], msg[8500];
    snprintf(file, sizeof file, "%s/trace/traces/%d.%s", run, who, read[1] == 1 ? "def" : "evt");
    if (read[1] == 1 && access(file, R_OK) == 0)
        trace_damage_where_defs(file, read[0], msg, sizeof msg);
    else if (access(file, R_OK) != 0)
        snprintf(msg, sizeof msg,
                 "%s: missing or unreadable (rank %d's events); trace the run again", file, who);
    else
        trace_damage_where(file, chunk_size, read[0], msg, sizeof msg);
    die("%s", msg);
}

#include "consistency.c"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        die("usage: mpilens-analyze RUN%s (started by mpilens analyze)", "");
    double t0 = MPI_Wtime();
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", argv[1]);
    uint64_t nloc = 0;
    OTF2_Reader *reader = trace_reader_open(anchor, &nloc);
    char why[8500];
    if (!reader) {
        trace_open_problem(anchor, why, sizeof why);
        die("%s", why);
    }
    if (trace_format_problem(reader, anchor, "analyze", why, sizeof why))
        die("%s", why);
    uint64_t ranks = trace_rank_count(reader, nloc);
    if (ranks != (uint64_t)size) {
        char msg[4200];
        snprintf(msg, sizeof msg,
                 "%s: the trace has %llu ranks but the analysis runs on %d; "
                 "start it with -np %llu",
                 anchor, (unsigned long long)ranks, size, (unsigned long long)ranks);
        die("%s", msg);
    }
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *gdc = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gdc, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gdc, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gdc, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gdc, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gdc, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(gdc, on_rma_win);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gdc, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, gdc, NULL);
    uint64_t n = 0;
    int bad = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &n) != OTF2_SUCCESS;
    OTF2_GlobalDefReaderCallbacks_Delete(gdc);
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad)
        die("%s: the global definitions are truncated or corrupt", anchor);
    make_replay_comms();

    /* A first pass only reads this rank's events, so that a truncated or corrupt rank file,
     * or traces that promise each other different communication (consistency.c), stop
     * every rank before the replay, where the others would wait for it forever. */
    uint64_t events = 0, chunk_size = 0, defs_chunk = 0;
    OTF2_Reader_GetChunkSize(reader, &chunk_size, &defs_chunk);
    int defs_bad = 0;
    uint64_t defs_read = 0;
    if (nmy == 0 && ENSURE(my_locations, my_cap, 0) == 0) /* a trace without location groups */
        my_locations[nmy++] = (uint64_t)rank;
    states = calloc(nmy, sizeof *states);
    OTF2_EvtReader **readers = calloc(nmy, sizeof *readers);
    int opened = open_events(reader, readers, &defs_bad, &defs_read) == 0;
    OTF2_EvtReaderCallbacks *cc = OTF2_EvtReaderCallbacks_New();
    consistency_callbacks(cc);
    bad = defs_bad ? 1 : !opened ? 2 : 0;
    for (uint32_t i = 0; !bad && i < nmy; i++) {
        uint64_t got = 0;
        OTF2_Reader_RegisterEvtCallbacks(reader, readers[i], cc, NULL);
        bad = OTF2_Reader_ReadAllLocalEvents(reader, readers[i], &got) != OTF2_SUCCESS ? 2 : 0;
        events += got;
    }
    OTF2_EvtReaderCallbacks_Delete(cc);
    OTF2_Reader_Close(reader);
    check_events(argv[1], chunk_size, bad, defs_bad ? defs_read : events);
    consistency_verdict(argv[1]);
    reader = trace_reader_open(anchor, &nloc);
    bad = !reader || open_events(reader, readers, &defs_bad, &defs_read) != 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad)
        die("%s: the trace could not be opened a second time", anchor);
    bad = replay(reader, &events) != 0;
    free(readers);
    if (sends) {
        MPI_Status *statuses = malloc(SEND_WINDOW * sizeof *statuses);
        MPI_Waitall(SEND_WINDOW, sends, statuses);
        free(statuses);
    }
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    OTF2_Reader_Close(reader);
    if (any_bad)
        die("%s: the events of a rank are truncated or corrupt", anchor);
    /* Each rank's time is the traced run's length (MPI_Init to MPI_Finalize of the trace). */
    double traced = trace_length               ? trace_length * 1e-9
                    : last_leave > first_enter ? (last_leave - first_enter) * 1e-9
                                               : 0;
    int rc = write_results(argv[1], traced);
    double t = MPI_Wtime() - t0, max_traced = 0;
    MPI_Reduce(&traced, &max_traced, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t all_events = 0;
    MPI_Reduce(&events, &all_events, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && rc == 0)
        printf("mpilens: analysis of %llu events on %d ranks in %.3f s (%.1f %% of the traced "
               "%.3f s); results in %s/mpilens.db (mpilens report --waits)\n",
               (unsigned long long)all_events, size, t, max_traced > 0 ? 100 * t / max_traced : 0,
               max_traced, argv[1]);
    MPI_Finalize();
    return rc;
}
