/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_core.c: the trace of one rank from MPI_Init to MPI_Finalize.
 *
 * While the run goes, events go to the rank's event log (trc_log.h) and the rank numbers
 * its communicators, windows, groups and user regions itself. Timestamps are
 * CLOCK_MONOTONIC nanoseconds. The offset of each host's clock to rank 0's is measured at
 * MPI_Init and at MPI_Finalize (ping-pong, the one of smallest round trip; 0 on rank 0's
 * host, which shares its clock; half that round trip is its error) and written as two
 * ClockOffset records, with which OTF2's readers (ours, otf2-print, Python's) put every
 * event on rank 0's clock, linearly interpolated. At MPI_Finalize the ranks' local definitions meet
 * on rank 0, which merges them (trc_defs.c) and sends each rank its local-to-global ids; every rank
 * converts its own log into its OTF2 event file (trc_convert.c) and writes its mapping
 * tables, and rank 0 writes the global definitions. A snapshot (include/mpilens_snapshot.h)
 * writes the log's buffer out and saves the local definitions, for `mpilens recover`.
 * That is trace:convert=finalize. By default (convert=after) MPI_Finalize only closes the
 * log and saves the definitions one last time (a snapshot marked MPI_Finalize, with the
 * end's clock offset): the application pays for recording only, however it was started,
 * and the conversion happens after the job, as a run is recovered (trc_recover.c): by
 * `mpilens run`, or, for a run without it (LD_PRELOAD, srun, a config file, -lmpilens),
 * by `mpilens recover DIR` or the first mpilens reader of the trace (analyze, export),
 * which rank 0 says at MPI_Finalize and leaves written in DIR/trace/CONVERT-PENDING.
 */
#define _GNU_SOURCE
#define OTF2_MPI_USE_PMPI
#define OTF2_MPI_UINT64_T MPI_UINT64_T
#define OTF2_MPI_INT64_T MPI_INT64_T
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <otf2/OTF2_MPI_Collectives.h>
#pragma GCC diagnostic pop
#include <errno.h>
#include <time.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run_output.h"
#include "trc.h"
#include "trc_convert.h"
#include "trc_defs_tree.h"

#define HAND_NAME(N) "MPI_" #N,
#define CLASS_NAME(N, F, M, P, A, FL, R) "MPI_" #N,
const char *const trc_region_names[R_REGIONS] = {
    TRC_HAND_REGIONS(HAND_NAME) LENS_CLASSIFIED(CLASS_NAME) "MPILENS_TRACE_FLUSH"};

/* OTF2's role of each family of src/gen/mpi_classes.py, as Score-P marks MPI regions. */
#define ROLE_p2p_send OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_recv OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_sendrecv OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_probe OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_mrecv OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_partitioned_send OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_partitioned_recv OTF2_REGION_ROLE_POINT2POINT
#define ROLE_p2p_partitioned_sync OTF2_REGION_ROLE_POINT2POINT
#define ROLE_coll_barrier OTF2_REGION_ROLE_BARRIER
#define ROLE_coll_one_to_all OTF2_REGION_ROLE_COLL_ONE2ALL
#define ROLE_coll_all_to_one OTF2_REGION_ROLE_COLL_ALL2ONE
#define ROLE_coll_all_to_all OTF2_REGION_ROLE_COLL_ALL2ALL
#define ROLE_coll_scan OTF2_REGION_ROLE_COLL_OTHER
#define ROLE_coll_neighbor OTF2_REGION_ROLE_COLL_OTHER
#define ROLE_rma_put OTF2_REGION_ROLE_RMA
#define ROLE_rma_get OTF2_REGION_ROLE_RMA
#define ROLE_rma_accumulate OTF2_REGION_ROLE_RMA
#define ROLE_rma_atomic OTF2_REGION_ROLE_RMA
#define ROLE_rma_sync_fence OTF2_REGION_ROLE_BARRIER
#define ROLE_rma_sync_pscw OTF2_REGION_ROLE_RMA
#define ROLE_rma_sync_lock OTF2_REGION_ROLE_RMA
#define ROLE_io_individual OTF2_REGION_ROLE_FILE_IO
#define ROLE_io_explicit OTF2_REGION_ROLE_FILE_IO
#define ROLE_io_shared OTF2_REGION_ROLE_FILE_IO
#define HAND_ROLE(N) OTF2_REGION_ROLE_FUNCTION,
#define CLASS_ROLE(N, F, M, P, A, FL, R) ROLE_##F,
const OTF2_RegionRole trc_region_roles[R_REGIONS] = {
    TRC_HAND_REGIONS(HAND_ROLE) LENS_CLASSIFIED(CLASS_ROLE) OTF2_REGION_ROLE_ARTIFICIAL};

int trc_on;
int trc_tsc_on;

static MPI_Comm trc_world = MPI_COMM_NULL;
static int rank, size;
static struct lens_comm **locals; /* local comm id -> record */
static uint32_t nlocals;
static int64_t offset_start, offset_end;
static uint64_t time_start, time_end, tick_start, tick_end;
static uint32_t clock_residual; /* ns, trc_clock_check at MPI_Finalize */
static uint32_t offset_error;   /* ns, the larger of the two offsets' errors */

struct trc_comm_data {
    uint32_t id_plus_one;
    uint32_t nremote;       /* an intercommunicator: the size of its remote group, */
    uint32_t *remote_world; /* and the world ranks of its members (made on first use) */
};

uint32_t trc_comm(MPI_Comm comm)
{
    return trc_comm_of(lens_comm(comm));
}

pthread_mutex_t trc_lock = PTHREAD_MUTEX_INITIALIZER;
uint32_t trc_world_id_plus_one;
unsigned trc_types_generation;

uint64_t trc_type_size_asked(struct trc_thread *me, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    me->last_type = type;
    me->last_type_size = (uint64_t)(size > 0 ? size : 0);
    me->types_generation = trc_types_generation;
    return me->last_type_size;
}

int MPI_Type_free(MPI_Datatype *type)
{
    __atomic_fetch_add(&trc_types_generation, 1, __ATOMIC_RELAXED);
    return MPILENS_DOWN(Type_free)(type);
}

uint32_t trc_comm_of(struct lens_comm *rec)
{
    struct trc_comm_data *d = lens_comm_payload(rec, sizeof *d);
    uint32_t id = __atomic_load_n(&d->id_plus_one, __ATOMIC_ACQUIRE);
    if (__builtin_expect(id != 0, 1))
        return id - 1;
    pthread_mutex_lock(&trc_lock); /* a communicator's first use: numbered once */
    if (!d->id_plus_one && lens_grow("trace", &locals, nlocals + 1, sizeof *locals) != 0) {
        pthread_mutex_unlock(&trc_lock); /* said once: its events are the world's, marked so */
        return trc_world_id_plus_one ? trc_world_id_plus_one - 1 : 0;
    }
    if (!d->id_plus_one) {
        locals[nlocals] = rec;
        __atomic_store_n(&d->id_plus_one, nlocals + 1, __ATOMIC_RELEASE);
        __atomic_store_n(&nlocals, nlocals + 1, __ATOMIC_RELEASE);
    }
    id = d->id_plus_one;
    pthread_mutex_unlock(&trc_lock);
    return id - 1;
}

const uint32_t *trc_remote_world(MPI_Comm comm, uint32_t *n)
{
    struct lens_comm *rec = lens_comm(comm);
    struct trc_comm_data *d = lens_comm_payload(rec, sizeof *d);
    pthread_mutex_lock(&trc_lock);
    if (!d->remote_world) {
        MPI_Group remote, world;
        int size = 0;
        PMPI_Comm_remote_group(comm, &remote);
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
        PMPI_Group_size(remote, &size);
        int *in = malloc((size + 1) * sizeof *in), *out = malloc((size + 1) * sizeof *out);
        uint32_t *table = malloc((size + 1) * sizeof *table);
        for (int i = 0; i < size; i++)
            in[i] = i;
        PMPI_Group_translate_ranks(remote, size, in, world, out);
        for (int i = 0; i < size; i++)
            table[i] = out[i] == MPI_UNDEFINED ? (uint32_t)i : (uint32_t)out[i];
        free(in);
        free(out);
        PMPI_Group_free(&remote);
        PMPI_Group_free(&world);
        d->nremote = (uint32_t)size;
        d->remote_world = table;
    }
    pthread_mutex_unlock(&trc_lock);
    *n = d->nremote;
    return d->remote_world;
}

/* This rank's clock minus rank 0's; *ERROR: how far it may be off (ns, half the round trip
 * of the ping-pong it came from). The ranks of one host share a clock: the host's first rank
 * measures and tells the others, and on rank 0's host the offset is 0 by definition
 * (measuring it would only measure scheduling noise); rank 0 answers one rank per host.
 * The measuring rank keeps the ping-pong of the smallest round trip: 10 at least, up to
 * 50 while the best is above 50 us (ranks polling on a busy host). Collective; LAST: the
 * end's measurement, after which the host's communicator goes. */
static int64_t clock_offset(uint32_t *error, int last)
{
    enum { TRIES_MIN = 10, TRIES_MAX = 50, GOOD_RTT_NS = 50000 };
    const uint64_t done = UINT64_MAX;
    int64_t result[2] = {0, 0}; /* offset, error */
    uint64_t best_rtt = UINT64_MAX;
    char host[MPI_MAX_PROCESSOR_NAME] = "", root_host[MPI_MAX_PROCESSOR_NAME];
    int len = 0, node_rank = 0;
    PMPI_Get_processor_name(host, &len);
    memcpy(root_host, host, sizeof host);
    PMPI_Bcast(root_host, sizeof root_host, MPI_CHAR, 0, trc_world);
    static MPI_Comm node = MPI_COMM_NULL; /* this host's ranks: made at MPI_Init, kept */
    if (node == MPI_COMM_NULL)
        PMPI_Comm_split_type(trc_world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_rank(node, &node_rank);
    int measures = node_rank == 0 && strcmp(host, root_host) != 0;
    int *measuring = rank == 0 ? calloc(size, sizeof *measuring) : NULL;
    PMPI_Gather(&measures, 1, MPI_INT, measuring, 1, MPI_INT, 0, trc_world);
    for (int peer = 1; rank == 0 && peer < size; peer++) {
        for (uint64_t t; measuring && measuring[peer];) {
            PMPI_Recv(&t, 1, MPI_UINT64_T, peer, 0, trc_world, MPI_STATUS_IGNORE);
            if (t == done)
                break;
            t = trc_clock_ns();
            PMPI_Send(&t, 1, MPI_UINT64_T, peer, 0, trc_world);
        }
    }
    free(measuring);
    for (int i = 0; measures && i < TRIES_MAX; i++) {
        if (i >= TRIES_MIN && best_rtt <= GOOD_RTT_NS)
            break;
        uint64_t t0 = trc_clock_ns(), remote_time, t1;
        PMPI_Send(&t0, 1, MPI_UINT64_T, 0, 0, trc_world);
        PMPI_Recv(&remote_time, 1, MPI_UINT64_T, 0, 0, trc_world, MPI_STATUS_IGNORE);
        t1 = trc_clock_ns();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            result[0] = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)remote_time;
            result[1] = (int64_t)((t1 - t0 + 1) / 2);
        }
    }
    if (measures)
        PMPI_Send(&done, 1, MPI_UINT64_T, 0, 0, trc_world);
    /* the host's other ranks wait without spinning: on a host with more ranks than cores,
     * their polling would slow the ping-pong they wait for (4 ms round trips, seen) */
    MPI_Request request;
    PMPI_Ibcast(result, 2, MPI_INT64_T, 0, node, &request);
    for (int done = 0;;) {
        PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        struct timespec pause = {0, node_rank ? 200000 : 0};
        nanosleep(&pause, NULL);
    }
    if (last)
        PMPI_Comm_free(&node);
    *error = result[1] > UINT32_MAX ? UINT32_MAX : (uint32_t)result[1];
    return result[0];
}

/* A trace left in DIR by an earlier run into the same output directory (OTF2 will not
 * overwrite an archive): its anchor, definitions and event files go. */
void trc_remove_archive(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/traces", dir);
    trc_remove_files(path, 1);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/traces.def", dir);
    unlink(path);
}

static void remove_previous_trace(const char *dir)
{
    char path[4200];
    trc_remove_archive(dir);
    snprintf(path, sizeof path, "%s/log", dir);
    trc_remove_files(path, 0);
}

/* ---- local definitions (async-signal-safe) ---- */

void trc_local_head(struct trc_defs_head *h)
{
    h->world_size = size;
    h->rank = rank;
    h->time_start = time_start;
    h->offset_start = offset_start;
    h->ticks = (uint32_t)trc_use_tsc;
    h->clock_residual_ns = clock_residual;
    h->offset_error_ns = offset_error;
    h->tick_start = tick_start;
    if (time_end) { /* the end's pair: the map runs exactly from start to end */
        h->tick_saved = tick_end;
        h->ns_saved = time_end;
    } else
        trc_clock_pair(&h->tick_saved, &h->ns_saved);
    h->ncomms = nlocals;
    h->nmembers = 0;
    for (uint32_t i = 0; i < h->ncomms; i++)
        h->nmembers += (uint32_t)locals[i]->size;
    trc_rma_counts(&h->nwindows, &h->ngroups);
    h->nnames = trc_user_count();
    h->nthreads = trc_thread_count();
    h->nfiles = trc_io_count();
}

void trc_comms_emit(struct mpilens_emitter *e, uint32_t ncomms, int my_rank)
{
    int32_t off = 0;
    for (uint32_t i = 0; i < ncomms; i++) {
        struct lens_wire_comm w = lens_comm_wire_of(locals[i], my_rank, off);
        off += locals[i]->size;
        mpilens_emit(e, &w, sizeof w);
    }
    for (uint32_t i = 0; i < ncomms; i++)
        for (int k = 0; k < locals[i]->size; k++) {
            int32_t m = locals[i]->members ? locals[i]->members[k] : -1;
            mpilens_emit(e, &m, sizeof m);
        }
    if (off & 1) {
        int32_t pad = 0;
        mpilens_emit(e, &pad, sizeof pad);
    }
}

/* This rank's local definitions (head, communicators, windows, user regions, files) into FD
 * (async-signal-safe: snapshots). */
int trc_defs_write(int fd, uint64_t time_end, int64_t offset_end)
{
    struct trc_defs_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, TRC_DEFS_MAGIC, sizeof h.magic);
    trc_local_head(&h);
    h.time_end = time_end;
    h.offset_end = offset_end;
    struct mpilens_emitter e = {.fd = fd};
    mpilens_emit(&e, &h, sizeof h);
    trc_comms_emit(&e, h.ncomms, h.rank);
    trc_rma_emit(&e, h.nwindows, h.ngroups);
    trc_user_emit(&e, h.nnames);
    trc_io_emit(&e, h.nfiles);
    return mpilens_emit_flush(&e);
}

/* The snapshot: the event buffers written out, the local definitions saved (with the end's
 * time and clock offset once MPI_Finalize measured them). */
static int write_snapshot(int fd)
{
    for (uint32_t t = 0; t < trc_thread_count(); t++)
        trc_log_save(&trc_thread_at(t)->log);
    trc_clock_sample();
    return trc_defs_write(fd, time_end, offset_end);
}

/* ---- start ---- */

/* 1 if OK holds on every rank (collective over the trace's world). */
static int everywhere(int ok)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, trc_world);
    return all;
}

void trc_start(void)
{
    lens_handle_hooks_set(&trc_handle_hooks);
    PMPI_Comm_dup(MPI_COMM_WORLD, &trc_world);
    PMPI_Comm_rank(trc_world, &rank);
    PMPI_Comm_size(trc_world, &size);
    trc_clock_setup(rank);
    lens_comm_register(MPI_COMM_WORLD, 'W', NULL);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/trace", lens_run_output_dir());
    if (rank == 0)
        remove_previous_trace(dir);
    PMPI_Barrier(trc_world);
    const char *buffer = getenv("MPILENS_TRACE_BUFFER");
    size_t bytes = buffer && *buffer ? (size_t)strtoull(buffer, NULL, 10) : 4u << 20;
    trc_logs_setup(dir, rank, bytes);
    if (!everywhere(trc_thread_new()->log.fd >= 0)) { /* thread 0: this one */
        if (rank == 0)
            lens_run_problem("trace",
                             "trace: %s/log: cannot write the event logs (%s); the run goes on "
                             "untraced",
                             dir, strerror(errno));
        return;
    }
    offset_start = clock_offset(&offset_error, 0);
    trc_clock_pair(&tick_start, &time_start);
    trc_user_publish();
    trc_on = 1;
    trc_tsc_on = trc_use_tsc;
    mpilens_snapshot_install("trace", rank, write_snapshot);
}

/* ---- finish ---- */

/* This rank's local definitions as one malloc'ed blob (*LEN bytes). */
static char *local_blob(int *len)
{
    int fd = memfd_create("mpilens-trace-defs", MFD_CLOEXEC);
    char *blob = NULL;
    *len = 0;
    if (fd >= 0 && trc_defs_write(fd, time_end, offset_end) == 0) {
        off_t n = lseek(fd, 0, SEEK_END);
        blob = malloc(n > 0 ? (size_t)n : 1);
        if (blob && pread(fd, blob, (size_t)n, 0) == n)
            *len = (int)n;
    }
    if (fd >= 0)
        close(fd);
    return blob;
}

/* Every rank's blob merged along the tree (trc_defs_tree.c); each rank gets its map back
 * (ids, first group). 1, or 0 on every rank. */
static int merge_definitions(struct trc_merged *m, struct trc_rank_map *mine, uint32_t *first_group)
{
    int len = 0;
    char *blob = local_blob(&len);
    int ok = trc_defs_tree_merge(trc_world, blob, (size_t)len, m, mine);
    free(blob);
    *first_group = rank == 0 ? trc_defs_first_group(m) : 0;
    PMPI_Bcast(first_group, 1, MPI_UINT32_T, 0, trc_world);
    return ok;
}

/* A run without mpilens run, its trace left for after the job: once every rank has saved
 * its definitions, rank 0 writes DIR/trace/CONVERT-PENDING (what readers look for, and
 * what a person finds there) and says in one line how the OTF2 archive comes. */
static void leave_for_later(void)
{
    PMPI_Barrier(trc_world);
    if (rank != 0)
        return;
    const char *out = lens_run_output_dir();
    char path[4300];
    snprintf(path, sizeof path, "%s/trace/" MPILENS_TRACE_PENDING, out);
    FILE *f = fopen(path, "w");
    int ok = f && fprintf(f,
                          "The event logs in log/ wait for their conversion to OTF2 "
                          "(traces.otf2):\n`mpilens recover %s` does it; mpilens analyze and "
                          "mpilens export do it\nfirst. trace:convert=finalize writes the "
                          "archive at MPI_Finalize.\n",
                          out) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) /* the logs and definitions are saved: only the note is missing */
        lens_run_problem("trace", "trace: %s: %s; `mpilens recover %s` converts the trace", path,
                         strerror(errno), out);
    fprintf(stderr,
            "mpilens: trace: %s/trace/log waits for its conversion to OTF2: `mpilens recover %s` "
            "(mpilens analyze and export do it first)\n",
            out, out);
}

/* Rank 0 says once when a rank's counter strayed from its map by more than 1 us per second
 * of run (at least 1 us): its times may be off by that much (collective). */
static void say_clock_residual(void)
{
    double seconds = (double)(time_end - time_start) * 1e-9;
    struct {
        double per_second;
        int rank;
    } mine = {clock_residual / (seconds > 1 ? seconds : 1), rank}, worst;
    PMPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, trc_world);
    if (rank == 0 && worst.per_second > 1000)
        fprintf(stderr,
                "mpilens: trace: rank %d's time-stamp counter strayed %.1f us a second from "
                "CLOCK_MONOTONIC (a VM moved between hosts?): its times may be off by that "
                "much; MPILENS_TRACE_CLOCK=monotonic traces with the kernel's clock\n",
                worst.rank, worst.per_second * 1e-3);
}

void trc_finish(void)
{
    if (!trc_on)
        return;
    trc_user_close();
    trc_tsc_on = 0;
    trc_on = 0;
    trc_clock_pair(&tick_end, &time_end);
    clock_residual = trc_clock_check(tick_start, time_start, tick_end, time_end);
    say_clock_residual();
    uint32_t end_error = 0;
    offset_end = clock_offset(&end_error, 1);
    offset_error = end_error > offset_error ? end_error : offset_error;
    for (uint32_t t = 0; t < trc_thread_count(); t++) {
        struct trc_thread *th = trc_thread_at(t);
        trc_log_close(&th->log);
        if (th->log.write_errno) {
            char trace_dir[4200], path[4400];
            snprintf(trace_dir, sizeof trace_dir, "%s/trace", lens_run_output_dir());
            trc_log_path(path, sizeof path, trace_dir, rank, th->index);
            lens_run_problem("trace",
                             "trace: %s: %s; the events of rank %d from byte %lld on are lost "
                             "(its trace ends there)",
                             path, strerror(th->log.write_errno), rank,
                             (long long)th->log.write_failed_at);
        }
    }
    const char *convert = getenv("MPILENS_TRACE_CONVERT");
    if (!convert || strcmp(convert, "finalize") != 0) { /* converted after the job */
        mpilens_snapshot_keep(MPILENS_SNAPSHOT_FINALIZED);
        if (!getenv("MPILENS_CLI")) /* no mpilens run to convert it: say who will */
            leave_for_later();
        PMPI_Comm_free(&trc_world);
        return;
    }

    struct trc_merged merged;
    memset(&merged, 0, sizeof merged);
    struct trc_rank_map mine;
    uint32_t first_group = 0;
    int defs_ok = merge_definitions(&merged, &mine, &first_group); /* the same everywhere */

    char dir[4096], log_path[4200];
    snprintf(dir, sizeof dir, "%s/trace", lens_run_output_dir());
    OTF2_Archive *archive = defs_ok ? trc_archive_open(dir, size) : NULL;
    if (!defs_ok || !everywhere(archive != NULL)) {
        char why[256];
        snprintf(why, sizeof why, defs_ok ? "cannot create the OTF2 archive (%s)" : "%s",
                 defs_ok ? strerror(errno) : "out of memory while merging the definitions");
        if (rank == 0)
            lens_run_problem("trace",
                             "trace: %s: %s; the event logs stay in %s/log for `mpilens "
                             "recover %s`",
                             dir, why, dir, lens_run_output_dir());
        if (archive)
            OTF2_Archive_Close(archive);
        trc_merged_free(&merged);
        free(mine.ids);
        PMPI_Comm_free(&trc_world);
        mpilens_snapshot_keep(MPILENS_SNAPSHOT_FINALIZED); /* converted later, as convert=after */
        return;
    }
    OTF2_MPI_Archive_SetCollectiveCallbacks(archive, trc_world, MPI_COMM_NULL);
    OTF2_Archive_OpenEvtFiles(archive);
    uint32_t nthreads = mine.head.nthreads;
    /* every buffer of the rest, agreed on every rank before a collective needs it */
    uint32_t *all_threads = calloc(size, sizeof *all_threads);
    uint64_t *events = calloc(nthreads + 1, sizeof *events);
    int *counts = rank == 0 ? calloc(size, sizeof *counts) : NULL;
    int *displs = rank == 0 ? calloc(size, sizeof *displs) : NULL;
    uint64_t *gathered = NULL, *all_events = NULL, nlocations = 0;
    int have = everywhere(all_threads && events && (rank != 0 || (counts && displs)));
    if (have) {
        PMPI_Allgather(&nthreads, 1, MPI_UINT32_T, all_threads, 1, MPI_UINT32_T, trc_world);
        nlocations = trc_first_extra(size, all_threads, size);
        gathered = rank == 0 ? calloc(nlocations + 1, sizeof *gathered) : NULL;
        all_events = rank == 0 ? calloc(nlocations + 1, sizeof *all_events) : NULL;
        have = everywhere(rank != 0 || (gathered && all_events));
    }
    if (!have) { /* as when the archive cannot be made: the logs stay for mpilens recover */
        if (rank == 0)
            lens_run_problem("trace",
                             "trace: %s: out of memory while writing the OTF2 archive; the "
                             "event logs stay in %s/log for `mpilens recover %s`",
                             dir, dir, lens_run_output_dir());
        OTF2_Archive_Close(archive);
        if (rank == 0)
            trc_remove_archive(dir);
        free(all_threads), free(events), free(counts), free(displs);
        free(gathered), free(all_events);
        trc_merged_free(&merged);
        free(mine.ids);
        PMPI_Comm_free(&trc_world);
        mpilens_snapshot_keep(MPILENS_SNAPSHOT_FINALIZED);
        return;
    }
    mine.first_extra = trc_first_extra(rank, all_threads, size);
    trc_convert_rank(archive, dir, &mine, events);
    trc_otf2_note(OTF2_Archive_CloseEvtFiles(archive));
    OTF2_Archive_OpenDefFiles(archive);
    for (uint32_t t = 0; t < nthreads; t++)
        trc_defs_write_local(archive, &mine, t, first_group);
    trc_otf2_note(OTF2_Archive_CloseDefFiles(archive));

    /* rank 0: every location's event count */
    for (int r = 0, at = 0; rank == 0 && r < size; r++) {
        counts[r] = (int)(all_threads[r] ? all_threads[r] : 1);
        displs[r] = at;
        at += counts[r];
    }
    PMPI_Gatherv(events, (int)(nthreads ? nthreads : 1), MPI_UINT64_T, gathered, counts, displs,
                 MPI_UINT64_T, 0, trc_world);
    for (int r = 0; rank == 0 && r < size; r++) {
        uint64_t first_extra = trc_first_extra(r, all_threads, size);
        for (int t = 0; t < counts[r]; t++)
            all_events[trc_location(r, (uint32_t)t, first_extra)] = gathered[displs[r] + t];
    }
    if (rank == 0)
        trc_defs_write_global(archive, &merged, size, all_threads, all_events);
    trc_otf2_note(OTF2_Archive_Close(archive));
    /* the logs go once every rank's part of the archive is written; else they stay, with
     * this rank's definitions, for `mpilens recover` (the archive cut short goes) */
    int written = trc_otf2_failed == OTF2_SUCCESS, all_written = everywhere(written);
    if (!written)
        lens_run_problem("trace",
                         "trace: %s: writing the OTF2 archive failed (%s); the event logs stay "
                         "in %s/log for `mpilens recover %s` once there is room",
                         dir, OTF2_Error_GetDescription(trc_otf2_failed), dir,
                         lens_run_output_dir());
    for (uint32_t t = 0; all_written && t < (nthreads ? nthreads : 1); t++) {
        trc_log_path(log_path, sizeof log_path, dir, rank, t);
        unlink(log_path);
    }
    PMPI_Barrier(trc_world);
    if (rank == 0 && all_written) {
        snprintf(log_path, sizeof log_path, "%s/log", dir);
        rmdir(log_path);
    } else if (rank == 0) {
        trc_remove_archive(dir);
    }
    free(events);
    free(counts);
    free(displs);
    free(gathered);
    free(all_threads);
    free(all_events);
    free(mine.ids);
    trc_merged_free(&merged);
    PMPI_Comm_free(&trc_world);
    /* the archive is the result: this rank's snapshot goes, or stays to be converted later
     * (as with convert=after) */
    mpilens_snapshot_end(all_written, MPILENS_SNAPSHOT_FINALIZED);
}
