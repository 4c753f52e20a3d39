/* prof_snapshot.c: the profile of one rank saved without MPI (src/common/snapshot.h), and
 * the recovery that merges the ranks' saved profiles into the run database after a job
 * that did not reach MPI_Finalize.
 *
 * A snapshot is a small header (world size, the command line read at MPI_Init) and then
 * the rank's profile in the very form the MPI merge sends between ranks (prof_merge.c:
 * counts, ranks, communicators, rows, members), written straight from the live records
 * with write(2) and fixed-size stack buffers only: it may run in a signal handler. The
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
#include "prof_merge.h"
#include "snapshot.h"

static int32_t world_size;
static char command[4096];
static int32_t command_len;
static struct wire_rank me;

/* The records whose data a snapshot or the merge carries. */
static int carried(struct lens_comm *c, struct prof_rows **data)
{
    *data = atomic_load(&c->payload);
    return *data || c->letter == 'W';
}

#define BATCH 64

/* One pass over the records: WHAT 0 communicators, 1 rows, 2 members; COUNT only. */
static int pass(int fd, int what, uint64_t *count)
{
    union {
        struct lens_wire_comm comm[BATCH];
        struct wire_row row[BATCH];
        int32_t member[BATCH];
    } buf;
    int n = 0, index = 0;
    int32_t members_off = 0;
    const double ns_per_tick = prof_seconds_per_tick * 1e9;
    size_t item = what == 0 ? sizeof buf.comm[0] : what == 1 ? sizeof buf.row[0] : sizeof buf.member[0];
#define EMIT()                                                                                     \
    do {                                                                                           \
        (*count)++;                                                                                \
        if (++n == BATCH) {                                                                        \
            if (fd >= 0 && lens_write_all(fd, &buf, n * item) != 0)                               \
                return -1;                                                                         \
            n = 0;                                                                                 \
        }                                                                                          \
    } while (0)
    for (struct lens_comm *c = lens_comm_all_unlocked(); c; c = c->next) {
        struct prof_rows *data;
        if (!carried(c, &data))
            continue;
        if (what == 0) {
            buf.comm[n] = lens_comm_wire_of(c, me.rank, members_off);
            members_off += c->size;
            EMIT();
        } else if (what == 1) {
            for (int op = 0; data && op < prof_op_count; op++) {
                struct prof_cell *row = atomic_load(&data->rows[op]);
                for (int b = 0; row && b < prof_nbuckets; b++) {
                    if (!row[b].calls)
                        continue;
                    buf.row[n] = (struct wire_row){.rank = me.rank,
                                                   .comm = index,
                                                   .op = (int16_t)op,
                                                   .bucket = (int16_t)b,
                                                   .calls = row[b].calls,
                                                   .time_ns = (uint64_t)(row[b].time_ticks * ns_per_tick),
                                                   .max_ns = (uint64_t)(row[b].max_ticks * ns_per_tick),
                                                   .volume = row[b].volume};
                    EMIT();
                }
            }
        } else {
            for (int i = 0; i < c->size; i++) {
                buf.member[n] = c->members ? c->members[i] : -1;
                EMIT();
            }
        }
        index++;
    }
#undef EMIT
    return fd >= 0 && n > 0 ? lens_write_all(fd, &buf, n * item) : 0;
}

static int write_snapshot(int fd)
{
    prof_clock_stop(); /* ticks to seconds, as at MPI_Finalize (clock_gettime only) */
    me.net_s = (prof_now() - prof_start_ticks) * prof_seconds_per_tick;
    me.mpi_s = prof_mpi_ticks * prof_seconds_per_tick;
    uint64_t counts[4] = {1, 0, 0, 0};
    for (int what = 0; what < 3; what++)
        pass(-1, what, &counts[what == 2 ? 3 : what + 1]);
    int32_t head[2] = {world_size, command_len};
    if (lens_write_all(fd, head, sizeof head) != 0 || lens_write_all(fd, command, command_len) != 0 ||
        lens_write_all(fd, counts, sizeof counts) != 0 || lens_write_all(fd, &me, sizeof me) != 0)
        return -1;
    uint64_t again[3] = {0, 0, 0};
    for (int what = 0; what < 3; what++)
        if (pass(fd, what, &again[what]) != 0)
            return -1;
    /* the records changed between the passes (another thread): the counts are wrong */
    return again[0] == counts[1] && again[1] == counts[2] && again[2] == counts[3] ? 0 : -1;
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
    lens_snapshot_install("profile", rank, write_snapshot);
}

/* ---- recovery (in `mpilens run` or `mpilens recover`, after the job) ---- */

/* One rank's file: header, then the packed profile. */
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
    return prof_merge_packed_checked(set, data + sizeof head + head[1],
                                     len - sizeof head - head[1])
               ? 0
               : -1;
}

__attribute__((visibility("default"))) int mpilens_module_recover(const char *dir, char *err,
                                                                  size_t errlen)
{
    struct profile_set set;
    memset(&set, 0, sizeof set);
    struct lens_snapshot_endings endings;
    if (lens_snapshot_gather(dir, "profile", absorb_file, &set, &endings) <= 0)
        return 0;
    double wall = 0;
    for (size_t r = 0; r < set.nranks; r++)
        wall = set.ranks[r].net_s > wall ? set.ranks[r].net_s : wall;
    prof_run_command = command;
    int rc = prof_db_write(&set, dir, wall, err, errlen);
    if (rc == 0)
        rc = lens_snapshot_mark_incomplete(dir, &endings, err, errlen);
    lens_snapshot_endings_free(&endings);
    prof_set_free(&set);
    return rc;
}
