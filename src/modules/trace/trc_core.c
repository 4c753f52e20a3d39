/* trc_core.c: the OTF2 archive of the trace module.
 *
 * Every rank is one OTF2 location (its world rank) and writes its own event file while
 * the run goes; OTF2 flushes its buffers to disk when they fill, so memory stays bounded.
 * Timestamps are CLOCK_MONOTONIC nanoseconds. The offset of each rank's clock to rank 0's is
 * measured at MPI_Init and at MPI_Finalize (ping-pong, the minimum round trip of 10; 0 on
 * rank 0's host, which shares its clock) and written as two ClockOffset records, for
 * readers to correct timestamps linearly. At
 * MPI_Finalize the communicator records of all ranks are merged (commtrack), rank 0 writes
 * the global definitions (system tree, locations, regions, groups, communicators, windows)
 * and every rank writes the mapping from its local communicator, window and group ids to
 * the global ones.
 */
#define OTF2_MPI_USE_PMPI
#define OTF2_MPI_UINT64_T MPI_UINT64_T
#define OTF2_MPI_INT64_T MPI_INT64_T
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <otf2/OTF2_MPI_Collectives.h>
#pragma GCC diagnostic pop
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "run_output.h"
#include "trace_reader.h"
#include "trc.h"
#include "tree_merge.h"

const char *const trc_region_names[R_REGIONS] = {"MPI_Send",
                                                 "MPI_Ssend",
                                                 "MPI_Bsend",
                                                 "MPI_Rsend",
                                                 "MPI_Recv",
                                                 "MPI_Isend",
                                                 "MPI_Issend",
                                                 "MPI_Irecv",
                                                 "MPI_Sendrecv",
                                                 "MPI_Wait",
                                                 "MPI_Waitall",
                                                 "MPI_Barrier",
                                                 "MPI_Bcast",
                                                 "MPI_Reduce",
                                                 "MPI_Allreduce",
                                                 "MPI_Allgather",
                                                 "MPI_Alltoall",
                                                 "MPI_Gather",
                                                 "MPI_Scatter",
                                                 "MPI_Win_fence",
                                                 "MPI_Win_start",
                                                 "MPI_Win_complete",
                                                 "MPI_Win_post",
                                                 "MPI_Win_wait",
                                                 "MPI_Win_lock",
                                                 "MPI_Win_unlock",
                                                 "MPI_Put",
                                                 "MPI_Get",
                                                 "MPI_Accumulate",
                                                 "MPI_Win_flush",
                                                 "MPI_Win_flush_all",
                                                 "MPI_Win_flush_local",
                                                 "MPI_Win_flush_local_all",
                                                 "MPI_Waitany",
                                                 "MPI_Waitsome",
                                                 "MPI_Test",
                                                 "MPI_Testany",
                                                 "MPI_Testall",
                                                 "MPI_Testsome",
                                                 "MPI_Start",
                                                 "MPI_Startall",
                                                 "MPI_Gatherv",
                                                 "MPI_Scatterv",
                                                 "MPI_Allgatherv",
                                                 "MPI_Alltoallv",
                                                 "MPI_Reduce_scatter",
                                                 "MPI_Reduce_scatter_block",
                                                 "MPI_Scan",
                                                 "MPI_Exscan",
                                                 "MPI_Ibsend",
                                                 "MPI_Irsend",
                                                 "MPI_Sendrecv_replace"};

int trc_on;
OTF2_EvtWriter *trc_writer;

static OTF2_Archive *archive;
static MPI_Comm trc_world = MPI_COMM_NULL;
static int rank, size;
static struct lens_comm **locals; /* local comm id -> record */
static uint32_t nlocals;
static int64_t offset_start, offset_end;
static uint64_t time_start, time_end;

struct trc_comm_data {
    uint32_t id_plus_one;
    uint32_t nremote;       /* an intercommunicator: the size of its remote group, */
    uint32_t *remote_world; /* and the world ranks of its members (made on first use) */
};

uint32_t trc_comm(MPI_Comm comm)
{
    return trc_comm_of(lens_comm(comm));
}

uint32_t trc_comm_of(struct lens_comm *rec)
{
    struct trc_comm_data *d = lens_comm_payload(rec, sizeof *d);
    if (!d->id_plus_one) {
        locals = realloc(locals, (nlocals + 1) * sizeof *locals);
        locals[nlocals] = rec;
        d->id_plus_one = ++nlocals;
    }
    return d->id_plus_one - 1;
}

const uint32_t *trc_remote_world(MPI_Comm comm, uint32_t *n)
{
    struct lens_comm *rec = lens_comm(comm);
    struct trc_comm_data *d = lens_comm_payload(rec, sizeof *d);
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
    *n = d->nremote;
    return d->remote_world;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *callerData, bool final)
{
    (void)user, (void)type, (void)location, (void)callerData, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
    (void)user, (void)type, (void)location;
    return trc_now();
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* This rank's clock minus rank 0's, from the ping-pong with the smallest round trip.
 * Ranks on rank 0's host share its clock: their offset is 0 by definition (measuring it
 * would only measure scheduling noise). */
static int64_t clock_offset(void)
{
    int64_t best = 0;
    uint64_t best_rtt = UINT64_MAX;
    char host[MPI_MAX_PROCESSOR_NAME] = "", root_host[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    PMPI_Get_processor_name(host, &len);
    memcpy(root_host, host, sizeof host);
    PMPI_Bcast(root_host, sizeof root_host, MPI_CHAR, 0, trc_world);
    int remote = strcmp(host, root_host) != 0, *remotes = malloc(size * sizeof *remotes);
    PMPI_Allgather(&remote, 1, MPI_INT, remotes, 1, MPI_INT, trc_world);
    for (int peer = 1; peer < size; peer++) {
        if (!remotes[peer])
            continue;
        for (int i = 0; i < 10; i++) {
            if (rank == 0) {
                uint64_t t;
                PMPI_Recv(&t, 1, MPI_UINT64_T, peer, 0, trc_world, MPI_STATUS_IGNORE);
                t = trc_now();
                PMPI_Send(&t, 1, MPI_UINT64_T, peer, 0, trc_world);
            } else if (rank == peer) {
                uint64_t t0 = trc_now(), remote_time, t1;
                PMPI_Send(&t0, 1, MPI_UINT64_T, 0, 0, trc_world);
                PMPI_Recv(&remote_time, 1, MPI_UINT64_T, 0, 0, trc_world, MPI_STATUS_IGNORE);
                t1 = trc_now();
                if (t1 - t0 < best_rtt) {
                    best_rtt = t1 - t0;
                    best = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)remote_time;
                }
            }
        }
    }
    free(remotes);
    return best;
}

/* A trace left in DIR by an earlier run into the same output directory (OTF2 will not
 * overwrite an archive): its anchor, definitions and event files go. */
static void remove_previous_trace(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/traces", dir);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        char file[4500];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (e->d_name[0] != '.')
            unlink(file);
    }
    if (d)
        closedir(d);
    rmdir(path);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/traces.def", dir);
    unlink(path);
}

void trc_start(void)
{
    PMPI_Comm_dup(MPI_COMM_WORLD, &trc_world);
    PMPI_Comm_rank(trc_world, &rank);
    PMPI_Comm_size(trc_world, &size);
    lens_comm_register(MPI_COMM_WORLD, 'W', NULL);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/trace", lens_run_output_dir());
    if (rank == 0)
        remove_previous_trace(dir);
    PMPI_Barrier(trc_world);
    archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    int ok = archive != NULL, all_ok = 0;
    if (ok) {
        OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
        OTF2_Archive_SetProperty(archive, MPILENS_TRACE_FORMAT_PROPERTY, MPILENS_TRACE_FORMAT,
                                 true);
        OTF2_MPI_Archive_SetCollectiveCallbacks(archive, trc_world, MPI_COMM_NULL);
        ok = OTF2_Archive_OpenEvtFiles(archive) == OTF2_SUCCESS &&
             (trc_writer = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)rank)) != NULL;
    }
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, trc_world);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr,
                    "mpilens: trace: cannot create the OTF2 archive in %s (check that the "
                    "directory is writable); the run goes on untraced\n",
                    dir);
        return;
    }
    offset_start = clock_offset();
    time_start = trc_now();
    trc_user_publish();
    trc_on = 1;
}

static void write_global_definitions(const struct lens_comm_set *comms, const uint64_t *events,
                                     uint64_t t_min, uint64_t t_max)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, t_min, t_max - t_min,
                                              OTF2_UNDEFINED_TIMESTAMP);
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(g, s++, "");
    OTF2_GlobalDefWriter_WriteString(g, s++, "machine");
    OTF2_GlobalDefWriter_WriteString(g, s++, "MPI");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < size; r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, s++, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r);
    }
    for (int i = 0; i < R_REGIONS; i++) {
        OTF2_GlobalDefWriter_WriteString(g, s, trc_region_names[i]);
        OTF2_GlobalDefWriter_WriteRegion(g, i, s, s, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
        s++;
    }
    uint64_t *members = malloc((size + 1) * sizeof *members);
    for (int r = 0; r < size; r++)
        members[r] = r;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 2, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, size, members);
    free(members);
    for (size_t c = 0; c < comms->ncomms; c++) {
        const struct lens_wire_comm *w = &comms->comms[c];
        char name[64];
        lens_comm_name(w, name, sizeof name);
        uint64_t *m = malloc((w->size + 1) * sizeof *m);
        for (int i = 0; i < w->size; i++)
            m[i] = (uint64_t)comms->members[w->members_off + i];
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteGroup(g, c + 1, s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, w->size, m);
        OTF2_GlobalDefWriter_WriteComm(g, c, s++, c + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        free(m);
    }
    s = trc_rma_write_global(g, s);
    trc_user_write_global(g, s);
    OTF2_Archive_CloseGlobalDefWriter(archive, g);
}

static void *pack_comms(void *ctx, int *len)
{
    struct lens_comm_set *s = ctx;
    uint64_t n[2] = {s->ncomms, s->nmembers};
    *len = (int)(sizeof n + n[0] * sizeof *s->comms + n[1] * sizeof *s->members);
    char *buf = malloc(*len);
    memcpy(buf, n, sizeof n);
    memcpy(buf + sizeof n, s->comms, n[0] * sizeof *s->comms);
    memcpy(buf + sizeof n + n[0] * sizeof *s->comms, s->members, n[1] * sizeof *s->members);
    return buf;
}

static void absorb_comms(void *ctx, const void *data, int len)
{
    (void)len;
    uint64_t n[2];
    memcpy(n, data, sizeof n);
    const struct lens_wire_comm *c = (const void *)((const char *)data + sizeof n);
    const int32_t *m = (const void *)(c + n[0]);
    for (uint64_t i = 0; i < n[0]; i++)
        lens_comm_set_add(ctx, &c[i], m + c[i].members_off);
}

void trc_finish(void)
{
    if (!trc_on)
        return;
    trc_user_close();
    trc_on = 0;
    time_end = trc_now();
    offset_end = clock_offset();
    uint64_t events = 0;
    OTF2_EvtWriter_GetNumberOfEvents(trc_writer, &events);
    OTF2_Archive_CloseEvtWriter(archive, trc_writer);
    OTF2_Archive_CloseEvtFiles(archive);

    /* Communicators: merge on rank 0, then everyone gets the merged list. */
    struct lens_comm_set set = {0};
    int *local_index = malloc((nlocals + 1) * sizeof *local_index);
    for (uint32_t i = 0; i < nlocals; i++)
        local_index[i] = lens_comm_set_add_local(&set, locals[i], rank);
    struct lens_comm_set mine = {0};
    for (uint32_t i = 0; i < nlocals; i++)
        lens_comm_set_add_local(&mine, locals[i], rank);
    static const struct lens_merge_ops ops = {pack_comms, absorb_comms};
    lens_tree_merge(trc_world, &set, &ops);
    int len = 0;
    char *packed = rank == 0 ? pack_comms(&set, &len) : NULL;
    PMPI_Bcast(&len, 1, MPI_INT, 0, trc_world);
    if (rank != 0)
        packed = malloc(len);
    PMPI_Bcast(packed, len, MPI_BYTE, 0, trc_world);
    struct lens_comm_set global = {0};
    absorb_comms(&global, packed, len);
    free(packed);

    uint32_t *comm_global = calloc(nlocals + 1, sizeof *comm_global);
    for (uint32_t i = 0; i < nlocals; i++) {
        const struct lens_wire_comm *w = &mine.comms[i];
        for (size_t g = 0; g < global.ncomms; g++)
            if (global.comms[g].root == w->root && global.comms[g].hash == w->hash &&
                global.comms[g].ordinal == w->ordinal)
                comm_global[i] = (uint32_t)g;
    }
    trc_rma_merge(trc_world, comm_global, (uint32_t)global.ncomms + 1);
    trc_user_merge(trc_world);
    OTF2_Archive_OpenDefFiles(archive);
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)rank);
    trc_write_id_map(dw, OTF2_MAPPING_COMM, comm_global, nlocals);
    free(comm_global);
    trc_rma_write_mappings(dw);
    trc_user_write_mappings(dw);
    OTF2_DefWriter_WriteClockOffset(dw, time_start, offset_start, 0);
    OTF2_DefWriter_WriteClockOffset(dw, time_end, offset_end, 0);
    OTF2_Archive_CloseDefWriter(archive, dw);
    OTF2_Archive_CloseDefFiles(archive);

    uint64_t *all_events = rank == 0 ? calloc(size, sizeof *all_events) : NULL, t_min, t_max;
    PMPI_Gather(&events, 1, MPI_UINT64_T, all_events, 1, MPI_UINT64_T, 0, trc_world);
    PMPI_Reduce(&time_start, &t_min, 1, MPI_UINT64_T, MPI_MIN, 0, trc_world);
    PMPI_Reduce(&time_end, &t_max, 1, MPI_UINT64_T, MPI_MAX, 0, trc_world);
    if (rank == 0)
        write_global_definitions(&global, all_events, t_min, t_max);
    OTF2_Archive_Close(archive);
    free(all_events);
    free(local_index);
    lens_comm_set_free(&set);
    lens_comm_set_free(&mine);
    lens_comm_set_free(&global);
    PMPI_Comm_free(&trc_world);
}
