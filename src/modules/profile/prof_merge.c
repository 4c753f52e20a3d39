/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_merge.c: gather the ranks' profiles to rank 0 along a binomial tree
 * (tree_merge.c). A receiver merges what it gets: ranks and rows are appended,
 * communicators deduplicated by (root, members hash, ordinal), so a communicator's
 * definition travels once per subtree.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "prof_merge.h"
#include "run_output.h"
#include "tree_merge.h"

/* 0, or -1 when PTR could not grow to N + EXTRA (+1) items (said once: run_output.h) */
#define GROW(ptr, n, extra) lens_grow("profile", &(ptr), (n) + (extra) + 1, sizeof *(ptr))

int prof_carried(struct lens_comm *c, struct prof_rows **data)
{
    *data = atomic_load(&c->payload);
    return *data || c->letter == 'W';
}

void prof_collect(struct profile_set *set, int rank, double net_s)
{
    memset(set, 0, sizeof *set);
    if (GROW(set->ranks, 0, 1) != 0)
        return;
    set->nranks = 1;
    set->ranks[0] = (struct wire_rank){
        .rank = rank, .net_s = net_s, .mpi_s = prof_mpi_ticks * prof_seconds_per_tick};
    int len = 0;
    char host[MPI_MAX_PROCESSOR_NAME];
    PMPI_Get_processor_name(host, &len);
    snprintf(set->ranks[0].host, sizeof set->ranks[0].host, "%s", host);
    for (struct lens_comm *c = lens_comm_all(); c; c = c->next) {
        struct prof_rows *data;
        if (!prof_carried(c, &data))
            continue;
        int index = lens_comm_set_add_local(&set->comms, c, rank);
        if (index < 0) /* out of memory: said */
            continue;
        for (int op = 0; data && op < prof_op_count; op++) {
            struct prof_cell *row = atomic_load(&data->rows[op]);
            for (int b = 0; row && b < prof_nbuckets; b++) {
                if (!row[b].calls)
                    continue;
                if (GROW(set->rows, set->nrows, 1) != 0)
                    continue;
                const double ns_per_tick = prof_seconds_per_tick * 1e9;
                struct wire_row *w = &set->rows[set->nrows++];
                *w = (struct wire_row){.rank = rank,
                                       .comm = index,
                                       .op = (int16_t)op,
                                       .bucket = (int16_t)b,
                                       .calls = row[b].calls,
                                       .volume = row[b].volume};
                w->time_ns = (uint64_t)(row[b].time_ticks * ns_per_tick);
                w->max_ns = (uint64_t)(row[b].max_ticks * ns_per_tick);
                if (op == PROF_OP_Init || op == PROF_OP_Init_thread)
                    set->ranks[0].startup_s += w->time_ns * 1e-9;
            }
        }
    }
}

void *prof_pack(const struct wire_rank *ranks, size_t nranks, const struct lens_comm_set *c,
                const void *rows, size_t nrows, size_t row_size, size_t *len)
{
    uint64_t counts[4] = {nranks, c->ncomms, nrows, c->nmembers};
    size_t size = sizeof counts + nranks * sizeof *ranks + c->ncomms * sizeof *c->comms +
                  nrows * row_size + c->nmembers * sizeof *c->members;
    char *buf = malloc(size), *p = buf;
    if (!buf) { /* an empty message: the subtree's rows are dropped, and it is said */
        lens_run_problem("profile",
                         "profile: out of memory while sending %zu bytes of rows "
                         "to the merge: they are dropped, the results incomplete",
                         size);
        *len = 0;
        return NULL;
    }
#define PUT(src, bytes)                                                                            \
    if ((bytes) != 0)                                                                              \
        memcpy(p, src, bytes);                                                                     \
    p += bytes
    PUT(counts, sizeof counts);
    PUT(ranks, nranks * sizeof *ranks);
    PUT(c->comms, c->ncomms * sizeof *c->comms);
    PUT(rows, nrows * row_size);
    PUT(c->members, c->nmembers * sizeof *c->members);
#undef PUT
    *len = size;
    return buf;
}

int *prof_unpack(const char *buf, size_t row_size, struct wire_rank **ranks, size_t *nranks,
                 struct lens_comm_set *comms, const void **rows, uint64_t *nrows)
{
    uint64_t counts[4];
    memcpy(counts, buf, sizeof counts);
    const struct wire_rank *r = (const void *)(buf + sizeof counts);
    const struct lens_wire_comm *c = (const void *)(r + counts[0]);
    *rows = c + counts[1];
    *nrows = counts[2];
    const int32_t *members = (const void *)((const char *)*rows + counts[2] * row_size);
    if (counts[0] && GROW(*ranks, *nranks, counts[0]) == 0) {
        memcpy(*ranks + *nranks, r, counts[0] * sizeof *r);
        *nranks += counts[0];
    }
    int *remap = malloc((counts[1] + 1) * sizeof *remap);
    for (uint64_t i = 0; remap && i < counts[1]; i++)
        remap[i] = lens_comm_set_add(comms, &c[i], members + c[i].members_off);
    return remap;
}

void prof_absorb_rows(const char *buf, size_t row_size, size_t comm_at, struct wire_rank **ranks,
                      size_t *nranks, struct lens_comm_set *comms, void **rows, size_t *nrows)
{
    const char *in;
    uint64_t n;
    int *remap = prof_unpack(buf, row_size, ranks, nranks, comms, (const void **)&in, &n);
    int fit = remap && lens_grow("profile", rows, *nrows + n + 1, row_size) == 0;
    for (uint64_t i = 0; fit && i < n; i++) {
        int32_t comm;
        memcpy(&comm, in + i * row_size + comm_at, sizeof comm);
        if (remap[comm] < 0) /* out of memory for the communicator: said */
            continue;
        char *out = (char *)*rows + (*nrows)++ * row_size;
        memcpy(out, in + i * row_size, row_size);
        memcpy(out + comm_at, &remap[comm], sizeof comm);
    }
    free(remap);
}

static void merge_packed(struct profile_set *s, const char *buf)
{
    prof_absorb_rows(buf, sizeof *s->rows, offsetof(struct wire_row, comm), &s->ranks, &s->nranks,
                     &s->comms, (void **)&s->rows, &s->nrows);
}

size_t prof_packed_size(const char *buf, size_t len)
{
    uint64_t counts[4];
    if (len < sizeof counts)
        return 0;
    memcpy(counts, buf, sizeof counts);
    for (int i = 0; i < 4; i++)
        if (counts[i] > len) /* no count can exceed the bytes it needs */
            return 0;
    size_t need = sizeof counts + counts[0] * sizeof(struct wire_rank) +
                  counts[1] * sizeof(struct lens_wire_comm) + counts[2] * sizeof(struct wire_row) +
                  counts[3] * sizeof(int32_t);
    return need <= len ? need : 0;
}

int prof_merge_packed_checked(struct profile_set *s, const char *buf, size_t len)
{
    uint64_t counts[4];
    if (prof_packed_size(buf, len) != len || len == 0)
        return 0;
    memcpy(counts, buf, sizeof counts);
    const struct lens_wire_comm *comms =
        (const void *)(buf + sizeof counts + counts[0] * sizeof(struct wire_rank));
    const struct wire_row *rows = (const void *)(comms + counts[1]);
    if (!lens_comm_wire_ok(comms, counts[1], counts[3]))
        return 0;
    for (uint64_t i = 0; i < counts[2]; i++)
        if (rows[i].comm < 0 || (uint64_t)rows[i].comm >= counts[1] || rows[i].op < 0 ||
            rows[i].op >= prof_op_count || rows[i].bucket < 0 || rows[i].bucket >= LENS_MAX_BUCKETS)
            return 0;
    merge_packed(s, buf);
    return 1;
}

static void *pack_set(void *ctx, size_t *len)
{
    const struct profile_set *s = ctx;
    return prof_pack(s->ranks, s->nranks, &s->comms, s->rows, s->nrows, sizeof *s->rows, len);
}

static void absorb_set(void *ctx, const void *data, size_t len)
{
    if (data && len >= 4 * sizeof(uint64_t)) /* an empty message: a sender ran out */
        merge_packed(ctx, data);
}

int prof_tree_merge(struct profile_set *set, MPI_Comm comm)
{
    static const struct lens_merge_ops ops = {pack_set, absorb_set};
    return lens_tree_merge(comm, set, &ops);
}

void prof_set_free(struct profile_set *set)
{
    free(set->ranks);
    free(set->rows);
    lens_comm_set_free(&set->comms);
    memset(set, 0, sizeof *set);
}
