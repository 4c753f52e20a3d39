/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_snapshot.c: the profile of one rank saved without MPI (include/mpilens_snapshot.h), and
 * the recovery that merges the ranks' saved profiles into the run database after a job
 * that did not reach MPI_Finalize.
 *
 * A snapshot is a small header (world size, the command line read at MPI_Init) and then
 * the rank's profile in the very form the MPI merge sends between ranks (prof_merge.c:
 * counts, ranks, communicators, rows, members), written straight from the live records
 * with write(2) and a fixed buffer (mpilens_snapshot.h's emitter) only: it may run in a signal
 * handler. After it, the call sites: {SITES_MAGIC, count} and count records in
 * prof_sites.c's form (older snapshots end before it). The
 * recovery reads every rank's file, merges them as rank 0 merges at MPI_Finalize, writes
 * the tables, and marks the run incomplete (metadata `Incomplete`: which ranks ended how,
 * which left nothing).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "prof_detail.h"
#include "prof_merge.h"
#include "mpilens_snapshot.h"

#define SITES_MAGIC 0x3153455449534c50ull /* "PLSITES1" */

static int32_t world_size;
static char command[4096];
static int32_t command_len;
static struct wire_rank me;

/* One pass over the records into E: WHAT 0 communicators, 1 rows, 2 members. */
static void pass(struct mpilens_emitter *e, int what)
{
    int index = 0;
    int32_t members_off = 0;
    const double ns_per_tick = prof_seconds_per_tick * 1e9;
    for (struct lens_comm *c = lens_comm_all_unlocked(); c; c = c->next) {
        struct prof_rows *data;
        if (!prof_carried(c, &data))
            continue;
        if (what == 0) {
            struct lens_wire_comm w = lens_comm_wire_of(c, me.rank, members_off);
            members_off += c->size;
            mpilens_emit(e, &w, sizeof w);
        } else if (what == 1) {
            for (int op = 0; data && op < prof_op_count; op++) {
                struct prof_cell *row = atomic_load(&data->rows[op]);
                for (int b = 0; row && b < prof_nbuckets; b++) {
                    struct prof_cell cell = prof_cell_now(&row[b], op);
                    if (!cell.calls)
                        continue;
                    struct wire_row w = {.rank = me.rank,
                                         .comm = index,
                                         .op = (int16_t)op,
                                         .bucket = (int16_t)b,
                                         .calls = cell.calls,
                                         .time_ns = (uint64_t)(cell.time_ticks * ns_per_tick),
                                         .max_ns = (uint64_t)(cell.max_ticks * ns_per_tick),
                                         .volume = cell.volume};
                    if (e->fd < 0 && (op == PROF_OP_Init || op == PROF_OP_Init_thread))
                        me.startup_s += w.time_ns * 1e-9; /* the counting pass, once */
                    mpilens_emit(e, &w, sizeof w);
                }
            }
        } else {
            for (int i = 0; i < c->size; i++) {
                int32_t m = c->members ? c->members[i] : -1;
                mpilens_emit(e, &m, sizeof m);
            }
        }
        index++;
    }
}

static int write_snapshot(int fd)
{
    prof_clock_stop(); /* ticks to seconds, as at MPI_Finalize (clock_gettime only) */
    me.net_s = (prof_now() - prof_start_ticks) * prof_seconds_per_tick;
    me.mpi_s = prof_mpi_ticks_now() * prof_seconds_per_tick;
    uint64_t counts[4] = {1, 0, 0, 0};
    me.startup_s = 0;
    for (int what = 0; what < 3; what++) {
        struct mpilens_emitter count = {.fd = -1};
        pass(&count, what);
        counts[what + 1] = count.count;
    }
    int32_t head[2] = {world_size, command_len};
    if (mpilens_write_all(fd, head, sizeof head) != 0 ||
        mpilens_write_all(fd, command, command_len) != 0 ||
        mpilens_write_all(fd, counts, sizeof counts) != 0 ||
        mpilens_write_all(fd, &me, sizeof me) != 0)
        return -1;
    for (int what = 0; what < 3; what++) {
        struct mpilens_emitter out = {.fd = fd};
        pass(&out, what);
        /* the records changed between the passes (another thread): saved again (snapshot.c) */
        if (mpilens_emit_flush(&out) != 0 || out.count != counts[what + 1])
            return -1;
    }
    struct mpilens_emitter count = {.fd = -1}, out = {.fd = fd};
    uint64_t sites[2] = {SITES_MAGIC, prof_sites_emit(&count, me.rank)};
    if (mpilens_write_all(fd, sites, sizeof sites) != 0 ||
        prof_sites_emit(&out, me.rank) != sites[1] || mpilens_emit_flush(&out) != 0)
        return -1;
    return 0;
}

void prof_snapshot_install(int rank, int size)
{
    world_size = size;
    me.rank = rank;
    int len = 0;
    char host[MPI_MAX_PROCESSOR_NAME];
    PMPI_Get_processor_name(host, &len);
    snprintf(me.host, sizeof me.host, "%s", host);
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, command, sizeof command - 1) : 0;
    if (fd >= 0)
        close(fd);
    command_len = n > 0 ? (int32_t)n : 0;
    for (int i = 0; i + 1 < command_len; i++)
        if (command[i] == '\0')
            command[i] = ' ';
    prof_sites_prepare();
    mpilens_snapshot_install("profile", rank, write_snapshot);
}

/* ---- recovery (in `mpilens run` or `mpilens recover`, after the job) ---- */

/* The call sites of the ranks' files, one after the other (prof_sites.c's records). */
static char *recovered_sites;
static size_t recovered_len;

/* The call-site section after the packed profile (none in older snapshots). */
static int absorb_sites(const char *data, size_t len)
{
    uint64_t head[2];
    if (len == 0)
        return 0;
    if (len < sizeof head)
        return -1;
    memcpy(head, data, sizeof head);
    if (head[0] != SITES_MAGIC || prof_sites_check(data + sizeof head, len - sizeof head, head[1]))
        return -1;
    char *grown = realloc(recovered_sites, recovered_len + len - sizeof head + 1);
    if (!grown)
        return -1;
    recovered_sites = grown;
    memcpy(recovered_sites + recovered_len, data + sizeof head, len - sizeof head);
    recovered_len += len - sizeof head;
    return 0;
}

/* One rank's file: header, then the packed profile, then its call sites. */
static int absorb_file(void *ctx, const char *data, size_t len, int32_t *world)
{
    struct profile_set *set = ctx;
    int32_t head[2];
    if (len < sizeof head + 4 * sizeof(uint64_t))
        return -1;
    memcpy(head, data, sizeof head);
    if (head[1] < 0 || (size_t)head[1] > len - sizeof head - 4 * sizeof(uint64_t))
        return -1;
    if (!command[0]) {
        memcpy(command, data + sizeof head, head[1] < 4095 ? head[1] : 4095);
        command_len = head[1];
    }
    *world = head[0];
    const char *packed = data + sizeof head + head[1];
    size_t rest = len - sizeof head - head[1], size = prof_packed_size(packed, rest);
    if (!size || !prof_merge_packed_checked(set, packed, size))
        return -1;
    return absorb_sites(packed + size, rest - size);
}

__attribute__((visibility("default"))) int mpilens_module_recover(const char *dir, char *err,
                                                                  size_t errlen)
{
    struct profile_set set;
    memset(&set, 0, sizeof set);
    struct mpilens_snapshot_endings endings;
    if (mpilens_snapshot_gather(dir, "profile", absorb_file, &set, &endings) <= 0)
        return 0;
    double wall = 0;
    int world = 0;
    for (size_t r = 0; r < set.nranks; r++) {
        wall = set.ranks[r].net_s > wall ? set.ranks[r].net_s : wall;
        world = set.ranks[r].rank + 1 > world ? set.ranks[r].rank + 1 : world;
    }
    prof_run_command = command;
    struct prof_sites_blob sites = {recovered_sites, recovered_len, 0};
    int rc = prof_detail_recovered(&set, &sites, world, wall, dir, err, errlen);
    if (rc == 0)
        rc = mpilens_snapshot_mark_incomplete(dir, &endings, err, errlen);
    free(recovered_sites);
    recovered_sites = NULL;
    recovered_len = 0;
    mpilens_snapshot_endings_free(&endings);
    prof_set_free(&set);
    return rc;
}
