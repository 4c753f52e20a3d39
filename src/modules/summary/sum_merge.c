/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_merge.c: the ranks' summaries added up on rank 0 (sum_merge.h). */
#include <stdlib.h>
#include <string.h>

#include "sum_merge.h"

void sum_merged_mine(struct sum_merged *m, int sites)
{
    memset(m, 0, sizeof *m);
    struct sum_totals *t = &m->t;
    t->ranks = 1;
    t->hosts = sum_host_first(); /* the host's lowest world rank counts the host */
    t->host_min = t->host_max = sum_host_size();
    uint64_t mpi_ticks = 0;
    for (int op = 0; op < SUM_OPS; op++)
        for (int c = 0; c < SUM_CLASSES; c++) {
            const struct sum_cell *cell = &sum_cells[op][c];
            if (cell->calls == 0)
                continue;
            mpi_ticks += cell->ticks;
            if (m->nrows == SUM_MAX_ROWS) {
                t->rows_dropped++;
                continue;
            }
            struct sum_op_row *r = &m->rows[m->nrows++];
            r->op = op;
            r->comm_size = c == SUM_WORLD     ? RECORD_COMM_WORLD
                           : c == SUM_NO_COMM ? RECORD_COMM_NONE
                           : c == SUM_OTHER   ? RECORD_COMM_OTHER
                                              : sum_class_size[c];
            r->calls = cell->calls;
            r->seconds = (double)cell->ticks * sum_seconds_per_tick;
        }
    double elapsed = sum_final_wall - sum_init_wall;
    double mpi = (double)mpi_ticks * sum_seconds_per_tick;
    double useful = elapsed > mpi ? elapsed - mpi : 0;
    t->useful_sum = t->useful_max = useful;
    t->mpi_sum = t->mpi_max = mpi;
    t->elapsed_max = elapsed;
    memcpy(t->bins, sum_bins, sizeof t->bins);
    memcpy(t->messages, sum_messages, sizeof t->messages);
    memcpy(t->bytes, sum_bytes, sizeof t->bytes);
    if (sites)
        m->nsites = sum_sites_top(m->sites, sum_seconds_per_tick, &t->sites_dropped);
}

static double max_of(double a, double b)
{
    return a > b ? a : b;
}

static void add_rows(struct sum_merged *m, const struct sum_op_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < m->nrows &&
               !(m->rows[j].op == rows[i].op && m->rows[j].comm_size == rows[i].comm_size))
            j++;
        if (j == m->nrows) {
            if (m->nrows == SUM_MAX_ROWS) {
                m->t.rows_dropped++;
                continue;
            }
            m->rows[m->nrows++] = (struct sum_op_row){rows[i].op, rows[i].comm_size, 0, 0};
        }
        m->rows[j].calls += rows[i].calls;
        m->rows[j].seconds += rows[i].seconds;
    }
}

/* A site on the wire: its figures, then its path as a length and the bytes, or as the
 * index of an earlier site of the same message with the same path (most sites lie in the
 * program itself). Kept small, so that a rank's part fits one eager message of the MPI
 * library's shared memory (Open MPI's 4 KiB): a larger one waits for the receiver. */
struct wire_site {
    double seconds;
    uint64_t offset;
    int32_t op;
    int16_t path_len; /* -1: the path of site `same` */
    int16_t same;
};

/* Packed: the totals, the counts, the rows, the sites. */
static void *pack(void *ctx, size_t *len)
{
    const struct sum_merged *m = ctx;
    size_t n = sizeof m->t + 2 * sizeof(int) + (size_t)m->nrows * sizeof m->rows[0] +
               (size_t)m->nsites * (sizeof(struct wire_site) + sizeof m->sites[0].path);
    char *out = malloc(n), *at = out;
    if (!out) {
        *len = 0;
        return NULL;
    }
    memcpy(at, &m->t, sizeof m->t);
    at += sizeof m->t;
    memcpy(at, &m->nrows, sizeof(int));
    at += sizeof(int);
    memcpy(at, &m->nsites, sizeof(int));
    at += sizeof(int);
    memcpy(at, m->rows, (size_t)m->nrows * sizeof m->rows[0]);
    at += (size_t)m->nrows * sizeof m->rows[0];
    for (int i = 0; i < m->nsites; i++) {
        const struct sum_site_row *r = &m->sites[i];
        struct wire_site w = {r->seconds, r->offset, r->op, 0, 0};
        int same = 0;
        while (same < i && strcmp(m->sites[same].path, r->path) != 0)
            same++;
        size_t plen = strnlen(r->path, sizeof r->path - 1);
        if (same < i) {
            w.path_len = -1;
            w.same = (int16_t)same;
            plen = 0;
        } else {
            w.path_len = (int16_t)plen;
        }
        memcpy(at, &w, sizeof w);
        at += sizeof w;
        memcpy(at, r->path, plen);
        at += plen;
    }
    *len = (size_t)(at - out);
    return out;
}

static void absorb(void *ctx, const void *data, size_t len)
{
    struct sum_merged *m = ctx;
    struct sum_totals t;
    int nrows, nsites;
    const char *at = data, *end = at + len;
    if (len < sizeof t + 2 * sizeof(int))
        return;
    memcpy(&t, at, sizeof t);
    memcpy(&nrows, at + sizeof t, sizeof(int));
    memcpy(&nsites, at + sizeof t + sizeof(int), sizeof(int));
    at += sizeof t + 2 * sizeof(int);
    if (nrows < 0 || nsites < 0 || nrows > SUM_MAX_ROWS || nsites > SUM_TOP_SITES ||
        (size_t)(end - at) < (size_t)nrows * sizeof m->rows[0])
        return;
    struct sum_op_row rows[SUM_MAX_ROWS];
    memcpy(rows, at, (size_t)nrows * sizeof rows[0]);
    at += (size_t)nrows * sizeof rows[0];
    struct sum_site_row sites[SUM_TOP_SITES];
    for (int i = 0; i < nsites; i++) {
        struct wire_site w;
        if ((size_t)(end - at) < sizeof w)
            return;
        memcpy(&w, at, sizeof w);
        at += sizeof w;
        memset(&sites[i], 0, sizeof sites[i]);
        sites[i].seconds = w.seconds;
        sites[i].offset = w.offset;
        sites[i].op = w.op;
        if (w.op < 0 || w.op >= SUM_OPS)
            return;
        if (w.path_len == -1 && w.same >= 0 && w.same < i) {
            memcpy(sites[i].path, sites[w.same].path, sizeof sites[i].path);
        } else if (w.path_len >= 0 && (size_t)w.path_len < sizeof sites[i].path &&
                   (size_t)(end - at) >= (size_t)w.path_len) {
            memcpy(sites[i].path, at, (size_t)w.path_len);
            at += w.path_len;
        } else {
            return;
        }
    }
    if (at != end)
        return;
    struct sum_totals *u = &m->t;
    u->host_min = u->ranks == 0 || t.host_min < u->host_min ? t.host_min : u->host_min;
    u->host_max = t.host_max > u->host_max ? t.host_max : u->host_max;
    u->ranks += t.ranks;
    u->hosts += t.hosts;
    u->useful_sum += t.useful_sum;
    u->useful_max = max_of(u->useful_max, t.useful_max);
    u->mpi_sum += t.mpi_sum;
    u->mpi_max = max_of(u->mpi_max, t.mpi_max);
    u->elapsed_max = max_of(u->elapsed_max, t.elapsed_max);
    u->sites_dropped += t.sites_dropped;
    u->rows_dropped += t.rows_dropped;
    for (int b = 0; b < SUM_BINS; b++)
        u->bins[b] += t.bins[b];
    for (int k = 0; k < 2; k++) {
        u->messages[k] += t.messages[k];
        u->bytes[k] += t.bytes[k];
    }
    add_rows(m, rows, nrows);
    sum_sites_merge(m->sites, &m->nsites, sites, nsites);
}

/* A tree of radix 8, one message an edge: at each level a rank whose position is a
 * multiple of 8 strides takes the parts of the (up to 7) ranks one stride apart above it,
 * all at once, and the others send theirs and are done. Rank 0 receives at most 7 x
 * log8(P) messages (7 x 6 at 10^5 ranks), and a job waits for log8(P) rounds instead of
 * log2(P): on a machine where ranks share cores each round costs a turn of the scheduler.
 * The packed part is bounded, so a receiver takes the largest there can be and asks MPI
 * for the length. */
#define RADIX 8
int sum_merge_all(MPI_Comm comm, struct sum_merged *m)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const size_t most = sizeof m->t + 2 * sizeof(int) + sizeof m->rows +
                        SUM_TOP_SITES * (sizeof(struct wire_site) + sizeof m->sites[0].path);
    char *in = malloc((RADIX - 1) * most);
    for (long stride = 1; stride < size; stride *= RADIX) {
        if (rank % (stride * RADIX) != 0) { /* a child at this level: send and stop */
            size_t len = 0;
            void *packed = pack(m, &len);
            PMPI_Send(packed ? packed : "", (int)len, MPI_BYTE,
                      (int)(rank - rank % (stride * RADIX)), 0, comm);
            free(packed);
            break;
        }
        MPI_Request req[RADIX - 1];
        char lost[RADIX - 1][1]; /* without memory, a message is still taken (its figures lost) */
        int n = 0;
        for (int j = 1; j < RADIX && rank + j * stride < size; j++, n++)
            PMPI_Irecv(in ? in + (size_t)n * most : lost[n], in ? (int)most : 0, MPI_BYTE,
                       (int)(rank + j * stride), 0, comm, &req[n]);
        MPI_Status status[RADIX - 1];
        PMPI_Waitall(n, req, status);
        for (int k = 0; k < n && in; k++) {
            int len = 0;
            PMPI_Get_count(&status[k], MPI_BYTE, &len);
            if (len > 0)
                absorb(m, in + (size_t)k * most, (size_t)len);
        }
    }
    free(in);
    return rank == 0;
}
