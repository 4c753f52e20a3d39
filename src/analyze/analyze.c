/* SPDX-License-Identifier: BSD-3-Clause */
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
 * x rank; rank 0 writes them into the run database (table waits). The files: this one reads
 * the trace and drives the replay; defs.c the definitions; replay_calls.c, replay_p2p.c,
 * replay_coll.c and replay_rma.c the patterns; consistency.c the check before the replay;
 * results.c the database (analyze.h says what they share).
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "analyze.h"
#include "trace_reader.h"

void die(const char *fmt, const char *arg)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "mpilens: analyze: ");
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* Opens the events of this rank's locations (its threads) in READER: their local
 * definitions read first (clock offsets, mapping tables), then an event reader each, in
 * READERS[nmy]. 0, or -1 (*DEFS_BAD: the definitions, of which *DEFS_READ were read). */
static int open_events(struct analysis *A, OTF2_Reader *reader, OTF2_EvtReader **readers,
                       int *defs_bad, uint64_t *defs_read)
{
    *defs_bad = 0;
    for (uint32_t i = 0; i < A->nmy; i++)
        OTF2_Reader_SelectLocation(reader, A->my_locations[i]);
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS)
        return -1;
    for (uint32_t i = 0; i < A->nmy; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(reader, A->my_locations[i]);
        if (!dr)
            continue;
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
    for (uint32_t i = 0; i < A->nmy; i++)
        if (!(readers[i] = OTF2_Reader_GetEvtReader(reader, A->my_locations[i])))
            return -1;
    return 0;
}

/* ---- the replay reads this rank's threads merged in time (OTF2's global reader): each
 * callback of the local form, called with the state of its event's location ---- */

/* Rank 0 says how far its replay got (a line the CLI shows on a terminal, and uses to
 * tell a slow analysis from a stuck one), every second from the third on. */
static uint64_t replayed, to_replay;
static double replay_start, said_at;

static void report_progress(const struct analysis *A)
{
    double now = MPI_Wtime();
    if (A->rank != 0 || now - replay_start < 2 || now - said_at < 1 || to_replay == 0)
        return;
    said_at = now;
    fprintf(stderr, "mpilens-progress: %d\n", (int)(100.0 * replayed / to_replay));
    fflush(stderr);
}

static struct call_state *state_of(struct analysis *A, OTF2_LocationRef l)
{
    for (uint32_t i = 0; i < A->nmy; i++)
        if (A->my_locations[i] == l)
            return &A->states[i];
    return &A->one_state;
}

#define UNPAREN(...) __VA_ARGS__
#define MERGED(NAME, PARAMS, ARGS)                                                                 \
    static OTF2_CallbackCode merged_##NAME(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,          \
                                           OTF2_AttributeList *a, UNPAREN PARAMS)                  \
    {                                                                                              \
        struct analysis *A = u;                                                                    \
        if (++replayed % 65536 == 0)                                                               \
            report_progress(A);                                                                    \
        A->cur_p = state_of(A, l);                                                                 \
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
MERGED(on_nbc_request, (uint64_t id), (id))
MERGED(on_nbc_complete,
       (OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t got,
        uint64_t id),
       (op, c, root, sent, got, id))
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
static int replay(struct analysis *A, OTF2_Reader *reader, uint64_t *events)
{
    to_replay = *events;
    replay_start = MPI_Wtime();
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
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(ec,
                                                                          merged_on_nbc_request);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(ec,
                                                                           merged_on_nbc_complete);
    OTF2_GlobalEvtReaderCallbacks_SetRmaCollectiveEndCallback(ec, merged_on_rma_fence);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGroupSyncCallback(ec, merged_on_rma_group_sync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(ec, merged_on_rma_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(ec, merged_on_rma_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaAtomicCallback(ec, merged_on_rma_atomic);
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader, gr, ec, A);
    OTF2_GlobalEvtReaderCallbacks_Delete(ec);
    int bad = OTF2_Reader_ReadAllGlobalEvents(reader, gr, events) != OTF2_SUCCESS;
    OTF2_Reader_CloseGlobalEvtReader(reader, gr);
    return bad ? -1 : 0;
}

/* Collective: stops every rank when one rank's trace could not be read, naming the first
 * such rank's file and where in it reading stopped. bad: 0 fine, 1 its local definitions,
 * 2 its events; read: the records read before. */
static void check_events(const struct analysis *A, const char *run, uint64_t chunk_size, int bad,
                         uint64_t events_read)
{
    int kind = bad;
    int first_bad = bad ? A->rank : A->size, who = A->size;
    MPI_Allreduce(&first_bad, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (who == A->size)
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

/* Every rank of the replay must read the trace: one that cannot (the run in a node-local
 * directory of another node) would leave the others waiting. Rank 0 names the first such
 * rank and its host; every rank stops. */
static void everyone_reads(struct analysis *A, const char *anchor)
{
    int mine = access(anchor, R_OK) == 0 ? A->size : A->rank, first = A->size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == A->size)
        return;
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    if (A->rank == first)
        MPI_Get_processor_name(host, &len);
    MPI_Bcast(host, sizeof host, MPI_CHAR, first, MPI_COMM_WORLD);
    char msg[4096 + MPI_MAX_PROCESSOR_NAME + 512];
    snprintf(msg, sizeof msg,
             "%s: rank %d of the replay (on %s) cannot read it: a directory of one node "
             "only? Copy the run to a file system every node sees, or replay it on this host "
             "with --launcher",
             anchor, first, host);
    die("%s", msg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static struct analysis analysis;
    struct analysis *A = &analysis;
    analysis_init(A);
    if (argc < 2)
        die("usage: mpilens-analyze RUN%s (started by mpilens analyze)", "");
    double t0 = MPI_Wtime();
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", argv[1]);
    everyone_reads(A, anchor);
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
    if (ranks != (uint64_t)A->size) {
        char msg[4200];
        snprintf(msg, sizeof msg,
                 "%s: the trace has %llu ranks but the analysis runs on %d; "
                 "start it with -np %llu",
                 anchor, (unsigned long long)ranks, A->size, (unsigned long long)ranks);
        die("%s", msg);
    }
    uint64_t n = 0;
    int bad = read_definitions(A, reader, &n) != 0;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad)
        die("%s: the global definitions are truncated or corrupt", anchor);
    make_replay_comms(A);

    /* A first pass only reads this rank's events, so that a truncated or corrupt rank file,
     * or traces that promise each other different communication (consistency.c), stop
     * every rank before the replay, where the others would wait for it forever. */
    uint64_t events = 0, chunk_size = 0, defs_chunk = 0;
    OTF2_Reader_GetChunkSize(reader, &chunk_size, &defs_chunk);
    int defs_bad = 0;
    uint64_t defs_read = 0;
    if (A->nmy == 0 &&
        ENSURE(A->my_locations, A->my_cap, 0) == 0) /* a trace without location groups */
        A->my_locations[A->nmy++] = (uint64_t)A->rank;
    A->states = calloc(A->nmy, sizeof *A->states);
    OTF2_EvtReader **readers = calloc(A->nmy, sizeof *readers);
    int opened = open_events(A, reader, readers, &defs_bad, &defs_read) == 0;
    OTF2_EvtReaderCallbacks *cc = OTF2_EvtReaderCallbacks_New();
    consistency_callbacks(A, cc);
    bad = defs_bad ? 1 : !opened ? 2 : 0;
    for (uint32_t i = 0; !bad && i < A->nmy; i++) {
        uint64_t got = 0;
        OTF2_Reader_RegisterEvtCallbacks(reader, readers[i], cc, A);
        bad = OTF2_Reader_ReadAllLocalEvents(reader, readers[i], &got) != OTF2_SUCCESS ? 2 : 0;
        events += got;
    }
    OTF2_EvtReaderCallbacks_Delete(cc);
    OTF2_Reader_Close(reader);
    check_events(A, argv[1], chunk_size, bad, defs_bad ? defs_read : events);
    consistency_verdict(A, argv[1]);
    reader = trace_reader_open(anchor, &nloc);
    bad = !reader || open_events(A, reader, readers, &defs_bad, &defs_read) != 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad)
        die("%s: the trace could not be opened a second time", anchor);
    bad = replay(A, reader, &events) != 0;
    free(readers);
    p2p_finish();
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    OTF2_Reader_Close(reader);
    if (any_bad)
        die("%s: the events of a rank are truncated or corrupt", anchor);
    /* Each rank's time is the traced run's length (MPI_Init to MPI_Finalize of the trace). */
    double traced = A->trace_length                  ? A->trace_length * 1e-9
                    : A->last_leave > A->first_enter ? (A->last_leave - A->first_enter) * 1e-9
                                                     : 0;
    /* the ideal network's run against the real one (docs/efficiency.md): the largest
     * computing, ideal end and real end (since the trace's start) over the ranks */
    uint64_t mine[3] = {A->useful, A->ideal,
                        A->last_leave > A->defs.clock_offset ? A->last_leave - A->defs.clock_offset
                                                             : 0},
             most[3] = {0, 0, 0};
    MPI_Reduce(mine, most, 3, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    int rc = write_results(A, argv[1], traced, most);
    double t = MPI_Wtime() - t0, max_traced = 0;
    MPI_Reduce(&traced, &max_traced, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t all_events = 0, partitioned = 0;
    MPI_Reduce(&events, &all_events, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&A->partitioned, &partitioned, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (A->rank == 0 && partitioned > 0) /* the trace has their regions only (coverage.md) */
        fprintf(stderr,
                "mpilens: analyze: %llu partitioned send or receive request%s "
                "(MPI_Psend_init, MPI_Precv_init) not replayed: waits in their transfers are "
                "not counted\n",
                (unsigned long long)partitioned, partitioned == 1 ? "" : "s");
    if (A->rank == 0 && rc == 0) /* on stderr, behind the progress lines: the CLI prints it */
        fprintf(stderr,
                "mpilens: analysis of %llu events on %d ranks in %.3f s (%.1f %% of the traced "
                "%.3f s); results in %s/mpilens.db (mpilens report --waits)\n",
                (unsigned long long)all_events, A->size, t,
                max_traced > 0 ? 100 * t / max_traced : 0, max_traced, argv[1]);
    MPI_Finalize();
    return rc;
}
