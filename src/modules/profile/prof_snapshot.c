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
#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
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
            buf.comm[n] = (struct lens_wire_comm){c->root,
                                                  c->ordinal,
                                                  c->members_hash,
                                                  c->letter,
                                                  c->root == me.rank ? c->counter : -1,
                                                  c->size,
                                                  members_off};
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

struct ending {
    int rank;
    char how[64];
};

static int by_rank(const void *a, const void *b)
{
    return ((const struct ending *)a)->rank - ((const struct ending *)b)->rank;
}

/* "rank 1: signal 11; ranks 0, 2, 3: signal 15; nothing saved by rank 4" into OUT. */
static void describe_endings(struct ending *e, int n, int size, char *out, size_t len)
{
    qsort(e, n, sizeof *e, by_rank);
    out[0] = '\0';
    char *done = calloc(n + 1, 1), *seen = calloc(size + 1, 1);
    for (int i = 0; i < n; i++) {
        if (e[i].rank >= 0 && e[i].rank < size)
            seen[e[i].rank] = 1;
        if (done[i])
            continue;
        char list[2048] = "";
        int count = 0;
        for (int j = i; j < n; j++) {
            if (done[j] || strcmp(e[j].how, e[i].how) != 0)
                continue;
            done[j] = 1;
            size_t at = strlen(list);
            snprintf(list + at, sizeof list - at, "%s%d", count++ ? ", " : "", e[j].rank);
        }
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s %s: %s", at ? "; " : "", count > 1 ? "ranks" : "rank",
                 list, e[i].how);
    }
    int missing = 0;
    for (int r = 0; r < size; r++) {
        if (seen[r])
            continue;
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%d", missing++ ? ", " : "; nothing saved by rank ", r);
    }
    free(done);
    free(seen);
}

__attribute__((visibility("default"))) int mpilens_module_recover(const char *dir, char *err,
                                                                  size_t errlen)
{
    char partial[4200];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    DIR *d = opendir(partial);
    if (!d)
        return 0;
    struct profile_set set;
    memset(&set, 0, sizeof set);
    struct ending *endings = NULL;
    int n = 0, size = 0;
    double wall = 0;
    struct dirent *entry;
    while ((entry = readdir(d))) {
        if (strncmp(entry->d_name, "profile.", 8) != 0)
            continue;
        char path[4500], how[64];
        snprintf(path, sizeof path, "%s/%s", partial, entry->d_name);
        size_t len = 0;
        char *data = lens_snapshot_read(path, &len, how, sizeof how);
        int32_t head[2];
        if (!data || len < sizeof head + 4 * sizeof(uint64_t)) {
            free(data);
            continue;
        }
        memcpy(head, data, sizeof head);
        if (head[1] < 0 || (size_t)head[1] > len - sizeof head - 4 * sizeof(uint64_t)) {
            free(data);
            continue;
        }
        if (!command[0]) {
            memcpy(command, data + sizeof head, head[1] < 4095 ? head[1] : 4095);
            command_len = head[1];
        }
        size = head[0] > size ? head[0] : size;
        const char *packed = data + sizeof head + head[1];
        size_t before = set.nranks;
        if (!prof_merge_packed_checked(&set, packed, len - sizeof head - head[1])) {
            free(data);
            continue;
        }
        for (size_t r = before; r < set.nranks; r++) {
            endings = realloc(endings, (n + 1) * sizeof *endings);
            endings[n].rank = set.ranks[r].rank;
            snprintf(endings[n].how, sizeof endings[n].how, "%s", how);
            n++;
            wall = set.ranks[r].net_s > wall ? set.ranks[r].net_s : wall;
        }
        free(data);
    }
    closedir(d);
    if (n == 0) {
        free(endings);
        return 0;
    }
    prof_run_command = command;
    int rc = prof_db_write(&set, dir, wall, err, errlen);
    char text[8192];
    describe_endings(endings, n, size, text, sizeof text);
    char db_path[4300];
    snprintf(db_path, sizeof db_path, "%s/mpilens.db", dir);
    sqlite3 *db = NULL;
    if (rc == 0 && sqlite3_open(db_path, &db) == SQLITE_OK) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db,
                               "INSERT OR REPLACE INTO metadata (key, value) VALUES "
                               "('Incomplete', ?1), ('Processes', ?2)",
                               -1, &st, NULL) == SQLITE_OK) {
            char procs[32];
            snprintf(procs, sizeof procs, "%d", size);
            sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 2, procs, -1, SQLITE_TRANSIENT);
            sqlite3_step(st);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    prof_set_free(&set);
    free(endings);
    return rc;
}
