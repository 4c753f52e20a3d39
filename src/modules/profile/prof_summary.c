/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_summary.c: the profile reduced over ranks along the merge tree (prof_summary.h).
 *
 * Each rank turns its rows into summary rows (one rank each); a receiver appends what a
 * child sends, maps its communicators into its own set (deduplicated by identity:
 * commtrack_wire.c), then sorts by (communicator, operation, bucket) and combines equal
 * keys. What travels up a subtree is therefore bounded by the distinct cells of the
 * subtree, not by its ranks; the ranks' own lines (host, times) still travel, one small
 * record a rank, for the ranks table.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "prof_summary.h"
#include "run_output.h"
#include "sort_combine.h"
#include "tree_merge.h"

#define GROW(ptr, n, extra) lens_grow("profile", &(ptr), (n) + (extra) + 1, sizeof *(ptr))

static int by_cell(const void *a, const void *b)
{
    const struct summary_row *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

/* FROM folded into INTO (the same cell). */
static void fold_row(void *into, const void *from)
{
    struct summary_row *a = into;
    const struct summary_row *b = from;
    double n = (double)a->ranks + b->ranks, delta = b->mean_ns - a->mean_ns;
    a->m2_ns += b->m2_ns + delta * delta * ((double)a->ranks * b->ranks / n);
    a->mean_ns += delta * (b->ranks / n);
    a->ranks += b->ranks;
    a->calls += b->calls;
    a->volume += b->volume;
    a->time_ns += b->time_ns;
    if (b->min_ns < a->min_ns || (b->min_ns == a->min_ns && b->min_rank < a->min_rank)) {
        a->min_ns = b->min_ns;
        a->min_rank = b->min_rank;
    }
    if (b->max_ns > a->max_ns || (b->max_ns == a->max_ns && b->max_rank < a->max_rank)) {
        a->max_ns = b->max_ns;
        a->max_rank = b->max_rank;
    }
    if (b->longest_ns > a->longest_ns)
        a->longest_ns = b->longest_ns;
}

/* Sorts S's rows and combines those of one cell: S then holds one row per cell. */
static void reduce(struct prof_summary *s)
{
    s->nrows = lens_sort_combine(s->rows, s->nrows, sizeof *s->rows, by_cell, fold_row);
}

int prof_summary_of_set(struct prof_summary *out, const struct profile_set *set)
{
    memset(out, 0, sizeof *out);
    size_t len;
    /* through the wire form: the same copying of ranks and communicators as a merge */
    char *packed = prof_pack(set->ranks, set->nranks, &set->comms, NULL, 0, 0, &len);
    if (!packed)
        return -1;
    const void *none;
    uint64_t zero;
    int *remap = prof_unpack(packed, 0, &out->ranks, &out->nranks, &out->comms, &none, &zero);
    free(packed);
    if (!remap || GROW(out->rows, 0, set->nrows) != 0) {
        free(remap);
        return -1;
    }
    for (size_t i = 0; i < set->nrows; i++) {
        const struct wire_row *r = &set->rows[i];
        if (remap[r->comm] < 0)
            continue;
        double t = (double)r->time_ns;
        out->rows[out->nrows++] = (struct summary_row){.comm = remap[r->comm],
                                                       .op = r->op,
                                                       .bucket = r->bucket,
                                                       .ranks = 1,
                                                       .min_rank = r->rank,
                                                       .max_rank = r->rank,
                                                       .calls = r->calls,
                                                       .volume = r->volume,
                                                       .time_ns = t,
                                                       .mean_ns = t,
                                                       .min_ns = t,
                                                       .max_ns = t,
                                                       .longest_ns = (double)r->max_ns};
    }
    free(remap);
    reduce(out);
    return 0;
}

static void *pack_summary(void *ctx, size_t *len)
{
    const struct prof_summary *s = ctx;
    return prof_pack(s->ranks, s->nranks, &s->comms, s->rows, s->nrows, sizeof *s->rows, len);
}

static void absorb_summary(void *ctx, const void *data, size_t len)
{
    struct prof_summary *s = ctx;
    if (!data || len < 4 * sizeof(uint64_t)) /* an empty message: a sender ran out, said */
        return;
    prof_absorb_rows(data, sizeof *s->rows, offsetof(struct summary_row, comm), &s->ranks,
                     &s->nranks, &s->comms, (void **)&s->rows, &s->nrows);
    reduce(s);
}

int prof_summary_tree_merge(struct prof_summary *summary, MPI_Comm comm)
{
    static const struct lens_merge_ops ops = {pack_summary, absorb_summary};
    return lens_tree_merge(comm, summary, &ops);
}

void prof_summary_free(struct prof_summary *summary)
{
    free(summary->ranks);
    free(summary->rows);
    lens_comm_set_free(&summary->comms);
    memset(summary, 0, sizeof *summary);
}
