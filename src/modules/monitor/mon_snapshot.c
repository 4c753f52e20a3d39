/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_snapshot.c: the monitor's data of one rank saved without MPI (include/mpilens_snapshot.h),
 * and the recovery that merges the ranks' saved data into the run database after a job
 * that did not reach MPI_Finalize.
 *
 * A snapshot is a header (the world size) and then the rank's data in the wire form the
 * MPI merge sends (mon_set.h: counts, phases, matrix rows, histograms, collectives, I/O,
 * communicators, members): the phases already closed (mon_local) followed by the open one,
 * named "run" as MPI_Finalize would name it, read from the live counters. It is written
 * with write(2) and a fixed buffer, in two passes (count, then write), and reads the live
 * data without locks: it may run in a signal handler. Uniform collectives travel in the
 * collective rows (mon_set.h), as at MPI_Finalize.
 */
#include <stdlib.h>
#include <string.h>

#include "mon.h"
#include "mon_set.h"
#include "mpilens_snapshot.h"
#include "sort_combine.h"

static int run_phase(void)
{
    for (size_t i = 0; i < mon_local.nphases; i++)
        if (strcmp(mon_local.phases[i].name, "run") == 0)
            return (int)i;
    return (int)mon_local.nphases;
}

static int has_coll(const struct mon_comm_data *d)
{
    return d && (d->v[0] | d->v[2] | d->v[4] | d->uniform[0]);
}

/* Section S (0 phases .. 6 members) of the snapshot into E. */
static void section(struct mpilens_emitter *e, int s)
{
    const int run = run_phase();
    const struct mon_set *l = &mon_local;
    if (s == 0) {
        for (size_t i = 0; i < l->nphases; i++)
            mpilens_emit(e, &l->phases[i], sizeof l->phases[i]);
        if (run == (int)l->nphases)
            mpilens_emit(e, &(struct mon_phase_name){"run"}, sizeof(struct mon_phase_name));
    } else if (s == 1) {
        for (size_t i = 0; i < l->nrows; i++)
            mpilens_emit(e, &l->rows[i], sizeof l->rows[i]);
        for (int k = 0; k < MON_KINDS; k++)
            for (int p = 0; p < mon_nprocs; p++) {
                uint64_t count, bytes;
                mon_cell(k, p, &count, &bytes);
                if (count)
                    mpilens_emit(e, &(struct mon_row){run, k, mon_rank, p, count, bytes},
                                 sizeof(struct mon_row));
            }
    } else if (s == 2) {
        for (size_t i = 0; i < l->nhist; i++)
            mpilens_emit(e, &l->hist[i], sizeof l->hist[i]);
        for (int p = 0; p < mon_nprocs; p++) {
            const struct mon_peer *r = atomic_load(&mon_peers[p]);
            for (int b = 0; r && b < MON_BINS; b++)
                if (r->bins[b])
                    mpilens_emit(e, &(struct mon_hist_row){run, mon_rank, p, b, r->bins[b]},
                                 sizeof(struct mon_hist_row));
        }
    } else if (s == 3) {
        for (size_t i = 0; i < l->ncoll; i++)
            mpilens_emit(e, &l->coll[i], sizeof l->coll[i]);
        int32_t index = (int32_t)l->comms.ncomms;
        for (struct lens_comm *c = lens_comm_all_unlocked(); c; c = c->next) {
            struct mon_comm_data view;
            const struct mon_comm_data *d = mon_comm_view(c, atomic_load(&c->payload), &view);
            if (!has_coll(d))
                continue;
            struct mon_coll_row row = {run, index++, mon_rank, {0}};
            mon_coll_values(d, row.v);
            mpilens_emit(e, &row, sizeof row);
        }
    } else if (s == 4) {
        for (size_t i = 0; i < l->nio; i++)
            mpilens_emit(e, &l->io[i], sizeof l->io[i]);
        for (const struct mon_file *f = mon_files_unlocked(); f; f = f->next) {
            if (!(f->v[0] | f->v[2]))
                continue;
            struct mon_io_row row = {run, mon_rank, "", {0}};
            memcpy(row.file, f->name, sizeof row.file);
            row.file[sizeof row.file - 1] = '\0';
            memcpy(row.v, f->v, sizeof row.v);
            mpilens_emit(e, &row, sizeof row);
        }
    } else if (s == 5) {
        for (size_t i = 0; i < l->comms.ncomms; i++)
            mpilens_emit(e, &l->comms.comms[i], sizeof l->comms.comms[i]);
        int32_t off = (int32_t)l->comms.nmembers;
        for (struct lens_comm *c = lens_comm_all_unlocked(); c; c = c->next) {
            struct mon_comm_data view;
            if (!has_coll(mon_comm_view(c, atomic_load(&c->payload), &view)))
                continue;
            struct lens_wire_comm w = lens_comm_wire_of(c, mon_rank, off);
            off += c->size;
            mpilens_emit(e, &w, sizeof w);
        }
    } else {
        for (size_t i = 0; i < l->comms.nmembers; i++)
            mpilens_emit(e, &l->comms.members[i], sizeof l->comms.members[i]);
        for (struct lens_comm *c = lens_comm_all_unlocked(); c; c = c->next) {
            struct mon_comm_data view;
            if (!has_coll(mon_comm_view(c, atomic_load(&c->payload), &view)))
                continue;
            for (int i = 0; i < c->size; i++) {
                int32_t m = c->members ? c->members[i] : -1;
                mpilens_emit(e, &m, sizeof m);
            }
        }
    }
}

static int32_t world_size;

static int write_snapshot(int fd)
{
    uint64_t n[7];
    for (int s = 0; s < 7; s++) {
        struct mpilens_emitter count = {.fd = -1};
        section(&count, s);
        n[s] = count.count;
    }
    int32_t head[2] = {world_size, 0};
    if (mpilens_write_all(fd, head, sizeof head) != 0 || mpilens_write_all(fd, n, sizeof n) != 0)
        return -1;
    for (int s = 0; s < 7; s++) {
        struct mpilens_emitter out = {.fd = fd};
        section(&out, s);
        if (mpilens_emit_flush(&out) != 0 || out.count != n[s])
            return -1; /* the data changed between the passes: saved again (snapshot.c) */
    }
    return 0;
}

void mon_snapshot_install(void)
{
    world_size = mon_nprocs;
    mpilens_snapshot_install("monitor", mon_rank, write_snapshot);
}

/* ---- recovery ---- */

/* 1 when the packed set of LEN bytes at DATA is whole and its indices in range. */
static int packed_ok(const char *data, size_t len)
{
    uint64_t n[7];
    if (len < sizeof n)
        return 0;
    memcpy(n, data, sizeof n);
    static const size_t item[7] = {sizeof(struct mon_phase_name),
                                   sizeof(struct mon_row),
                                   sizeof(struct mon_hist_row),
                                   sizeof(struct mon_coll_row),
                                   sizeof(struct mon_io_row),
                                   sizeof(struct lens_wire_comm),
                                   sizeof(int32_t)};
    size_t need = sizeof n;
    for (int s = 0; s < 7; s++) {
        if (n[s] > len)
            return 0;
        need += n[s] * item[s];
    }
    if (need != len)
        return 0;
    const char *p = data + sizeof n + n[0] * item[0];
    const struct mon_row *rows = (const void *)p;
    for (uint64_t i = 0; i < n[1]; i++)
        if (rows[i].phase < 0 || (uint64_t)rows[i].phase >= n[0] || rows[i].kind < 0 ||
            rows[i].kind >= MON_KINDS)
            return 0;
    const struct mon_hist_row *hist = (const void *)(rows + n[1]);
    for (uint64_t i = 0; i < n[2]; i++)
        if (hist[i].phase < 0 || (uint64_t)hist[i].phase >= n[0])
            return 0;
    const struct mon_coll_row *coll = (const void *)(hist + n[2]);
    for (uint64_t i = 0; i < n[3]; i++)
        if (coll[i].phase < 0 || (uint64_t)coll[i].phase >= n[0] || coll[i].comm < 0 ||
            (uint64_t)coll[i].comm >= n[5])
            return 0;
    const struct mon_io_row *io = (const void *)(coll + n[3]);
    for (uint64_t i = 0; i < n[4]; i++)
        if (io[i].phase < 0 || (uint64_t)io[i].phase >= n[0])
            return 0;
    return lens_comm_wire_ok((const void *)(io + n[4]), n[5], n[6]);
}

static int absorb_file(void *ctx, const char *data, size_t len, int32_t *world)
{
    int32_t head[2];
    if (len < sizeof head)
        return -1;
    memcpy(head, data, sizeof head);
    if (head[1] != 0 || !packed_ok(data + sizeof head, len - sizeof head))
        return -1;
    *world = head[0];
    mon_set_absorb(ctx, data + sizeof head, len - sizeof head);
    return 0;
}

static int by_cell(const void *a, const void *b)
{
    const struct mon_row *x = a, *y = b;
    if (x->phase != y->phase)
        return x->phase - y->phase;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->src != y->src)
        return x->src - y->src;
    return x->dst - y->dst;
}

/* Rows of the same cell (a snapshot's pending uniform collectives) added together. */
static void add_row(void *into, const void *from)
{
    struct mon_row *a = into;
    const struct mon_row *b = from;
    a->count += b->count;
    a->bytes += b->bytes;
}

static void combine_rows(struct mon_set *s)
{
    s->nrows = lens_sort_combine(s->rows, s->nrows, sizeof *s->rows, by_cell, add_row);
}

__attribute__((visibility("default"))) int mpilens_module_recover(const char *dir, char *err,
                                                                  size_t errlen)
{
    struct mon_set set;
    memset(&set, 0, sizeof set);
    struct mpilens_snapshot_endings endings;
    if (mpilens_snapshot_gather(dir, "monitor", absorb_file, &set, &endings) <= 0) {
        mon_set_free(&set);
        return 0;
    }
    combine_rows(&set);
    mon_nprocs = endings.world_size; /* what mon_set_write records as Processes */
    int rc = mon_set_write(&set, NULL, dir, err, errlen);
    if (rc == 0)
        rc = mpilens_snapshot_mark_incomplete(dir, &endings, err, errlen);
    mpilens_snapshot_endings_free(&endings);
    mon_set_free(&set);
    return rc;
}
