/* SPDX-License-Identifier: BSD-3-Clause */
/* tree_merge.h: gather every rank's data on rank 0 along a binomial tree. In round k, a
 * rank with bit k set (and no lower bit) sends its packed state to rank - 2^k and stops;
 * the receiver absorbs it. Rank 0 receives log2(P) messages instead of P-1. Lengths are
 * 64-bit: a state under 1 GiB is one message; a larger one travels as its length, then in
 * pieces of 1 GiB (MPI counts are int).
 */
#ifndef LENS_TREE_MERGE_H
#define LENS_TREE_MERGE_H

#include "lens_hidden.h"

#include <mpi.h>
#include <stddef.h>

struct lens_merge_ops {
    void *(*pack)(void *ctx, size_t *len);                   /* malloc'ed bytes of ctx */
    void (*absorb)(void *ctx, const void *data, size_t len); /* merge a packed state into ctx */
};

/* Returns 1 on rank 0 of comm (ctx then holds everything), 0 elsewhere. */
LENS_HIDDEN int lens_tree_merge(MPI_Comm comm, void *ctx, const struct lens_merge_ops *ops);

#endif
