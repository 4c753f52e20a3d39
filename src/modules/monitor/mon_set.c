/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_set.c: the monitor's wire form: building, packing and merging it, and writing it
 * into the run database (tables monitor_*, docs/database.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mon.h"
#include "mon_set.h"
#include "mpilens.h"
#include "mon_hosts.h"
#include "rundb_write.h"
#include "run_output.h"

/* ITEM added to ARR; dropped when ARR cannot grow (said once: run_output.h) */
#define APPEND(arr, n, item)                                                                       \
    do {                                                                                           \
        if (lens_grow("monitor", &(arr), (n) + 1, sizeof *(arr)) == 0)                             \
            arr[(n)++] = *(item);                                                                  \
    } while (0)

int mon_set_phase(struct mon_set *s, const char *name)
{
    for (size_t i = 0; i < s->nphases; i++)
        if (strcmp(s->phases[i].name, name) == 0)
            return (int)i;
    struct mon_phase_name p;
    snprintf(p.name, sizeof p.name, "%s", name);
    APPEND(s->phases, s->nphases, &p);
    return (int)s->nphases - 1;
}

void mon_set_add_row(struct mon_set *s, const struct mon_row *r)
{
    APPEND(s->rows, s->nrows, r);
}
void mon_set_add_hist(struct mon_set *s, const struct mon_hist_row *r)
{
    APPEND(s->hist, s->nhist, r);
}
void mon_set_add_coll(struct mon_set *s, const struct mon_coll_row *r)
{
    APPEND(s->coll, s->ncoll, r);
}
void mon_set_add_io(struct mon_set *s, const struct mon_io_row *r)
{
    APPEND(s->io, s->nio, r);
}

/* Layout: 7 counts, then phases, rows, hist, coll, io, comms, members. */
void *mon_set_pack(void *ctx, size_t *len)
{
    struct mon_set *s = ctx;
    uint64_t n[7] = {s->nphases, s->nrows,        s->nhist,         s->ncoll,
                     s->nio,     s->comms.ncomms, s->comms.nmembers};
    size_t size = sizeof n + n[0] * sizeof *s->phases + n[1] * sizeof *s->rows +
                  n[2] * sizeof *s->hist + n[3] * sizeof *s->coll + n[4] * sizeof *s->io +
                  n[5] * sizeof *s->comms.comms + n[6] * sizeof *s->comms.members;
    char *buf = malloc(size), *p = buf;
    if (!buf) { /* an empty message: the receiver absorbs nothing */
        lens_run_problem("monitor",
                         "monitor: out of memory packing %zu bytes of records for "
                         "the merge: this rank's records are missing",
                         size);
        *len = 0;
        return NULL;
    }
#define PUT(src, bytes)                                                                            \
    memcpy(p, src, bytes);                                                                         \
    p += bytes
    PUT(n, sizeof n);
    PUT(s->phases, n[0] * sizeof *s->phases);
    PUT(s->rows, n[1] * sizeof *s->rows);
    PUT(s->hist, n[2] * sizeof *s->hist);
    PUT(s->coll, n[3] * sizeof *s->coll);
    PUT(s->io, n[4] * sizeof *s->io);
    PUT(s->comms.comms, n[5] * sizeof *s->comms.comms);
    PUT(s->comms.members, n[6] * sizeof *s->comms.members);
#undef PUT
    *len = size;
    return buf;
}

void mon_set_absorb(void *ctx, const void *data, size_t len)
{
    struct mon_set *s = ctx;
    uint64_t n[7];
    if (!data || len < sizeof n) /* an empty message: a sender ran out of memory */
        return;
    memcpy(n, data, sizeof n);
    const struct mon_phase_name *phases = (const void *)((const char *)data + sizeof n);
    const struct mon_row *rows = (const void *)(phases + n[0]);
    const struct mon_hist_row *hist = (const void *)(rows + n[1]);
    const struct mon_coll_row *coll = (const void *)(hist + n[2]);
    const struct mon_io_row *io = (const void *)(coll + n[3]);
    const struct lens_wire_comm *comms = (const void *)(io + n[4]);
    const int32_t *members = (const void *)(comms + n[5]);
    int *phase_map = malloc((n[0] + 1) * sizeof *phase_map);
    int *comm_map = malloc((n[5] + 1) * sizeof *comm_map);
    if (!phase_map || !comm_map) {
        lens_run_problem("monitor", "monitor: out of memory merging a rank's records: they are "
                                    "missing (the results are incomplete)");
        free(phase_map);
        free(comm_map);
        return;
    }
    for (uint64_t i = 0; i < n[0]; i++)
        phase_map[i] = mon_set_phase(s, phases[i].name);
    for (uint64_t i = 0; i < n[5]; i++)
        comm_map[i] = lens_comm_set_add(&s->comms, &comms[i], members + comms[i].members_off);
/* each row of TYPE from ROWS (N of them) added with ADD, its phase renumbered */
#define ABSORB_ROWS(TYPE, ROWS, N, ADD, ...)                                                       \
    for (uint64_t i = 0; i < (N); i++) {                                                           \
        TYPE r = (ROWS)[i];                                                                        \
        r.phase = phase_map[r.phase];                                                              \
        __VA_ARGS__;                                                                               \
        ADD(s, &r);                                                                                \
    }
    ABSORB_ROWS(struct mon_row, rows, n[1], mon_set_add_row, (void)0)
    ABSORB_ROWS(struct mon_hist_row, hist, n[2], mon_set_add_hist, (void)0)
    ABSORB_ROWS(struct mon_coll_row, coll, n[3], mon_set_add_coll, r.comm = comm_map[r.comm];
                if (r.comm < 0) continue) /* out of memory for the communicator: said */
    ABSORB_ROWS(struct mon_io_row, io, n[4], mon_set_add_io, (void)0)
#undef ABSORB_ROWS
    free(phase_map);
    free(comm_map);
}

void mon_set_free(struct mon_set *s)
{
    free(s->phases);
    free(s->rows);
    free(s->hist);
    free(s->coll);
    free(s->io);
    lens_comm_set_free(&s->comms);
    memset(s, 0, sizeof *s);
}

static const char *const kind_names[MON_KINDS] = {"p2p", "coll", "rma", "rma_recv"};

static int write_rows(struct rundb *run, const struct mon_set *s, const int *comm_ids)
{
    int rc = 0;
    for (size_t i = 0; i < s->nphases; i++)
        rc |= rundb_put_phase(run, (int)i, s->phases[i].name);
    for (size_t i = 0; i < s->nrows; i++) {
        const struct mon_row *r = &s->rows[i];
        rc |= rundb_put_matrix(run, r->phase, kind_names[r->kind], r->src, r->dst, r->count,
                               r->bytes);
    }
    for (size_t i = 0; i < s->nhist; i++) {
        const struct mon_hist_row *r = &s->hist[i];
        rc |= rundb_put_histogram(run, r->phase, r->src, r->dst, r->bin, r->count);
    }
    for (size_t i = 0; i < s->ncoll; i++) {
        const struct mon_coll_row *r = &s->coll[i];
        rc |= rundb_put_collectives(run, r->phase, comm_ids[r->comm], r->rank, r->v);
    }
    for (size_t i = 0; i < s->nio; i++) {
        const struct mon_io_row *r = &s->io[i];
        rc |= rundb_put_io(run, r->phase, r->rank, r->file, r->v);
    }
    return rc ? -1 : 0;
}

/* MPI_COMM_WORLD (W0.0) is always in the communicators table, as docs/database.md says,
 * even when no collective used it (the set holds only communicators with data). */
static int write_world(struct rundb *run)
{
    int32_t *members = malloc(((size_t)mon_nprocs + 1) * sizeof *members);
    if (!members)
        return -1;
    for (int r = 0; r < mon_nprocs; r++)
        members[r] = r;
    int rc = rundb_put_communicator(run, "W0.0", mon_nprocs, "MPI_COMM_WORLD", members, NULL, NULL);
    free(members);
    return rc;
}

int mon_set_write(const struct mon_set *s, const struct mon_hosts *hosts, const char *dir,
                  char *err, size_t errlen)
{
    struct rundb run;
    if (rundb_begin(&run, dir, err, errlen) != 0)
        return -1;
    int *ids = calloc(s->comms.ncomms + 1, sizeof *ids);
    char procs[32];
    snprintf(procs, sizeof procs, "%d", mon_nprocs);
    int rc = !ids || rundb_monitor_create(&run) != 0 ||
             rundb_put_metadata_default(&run, "mpilens version", MPILENS_VERSION) != 0 ||
             rundb_put_metadata_default(&run, "Processes", procs) != 0 ||
             lens_comm_set_write(&run, &s->comms, ids) != 0 || write_world(&run) != 0 ||
             write_rows(&run, s, ids) != 0 || (hosts && mon_hosts_write(&run, hosts) != 0);
    free(ids);
    return rundb_finish(&run, rc != 0, "the monitor tables", err, errlen);
}
