/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_defs_tree.h: the ranks' definitions merged along a binomial tree (trc_defs_tree.c).
 */
#ifndef TRC_DEFS_TREE_H
#define TRC_DEFS_TREE_H

#include <mpi.h>
#include <stddef.h>

#include "trc_defs.h"

/* Collective over COMM (the trace's duplicate of MPI_COMM_WORLD): this rank's BLOB (LEN bytes;
 * NULL: none) merged with every other rank's. MERGED: on rank 0 every rank's definitions (global
 * ids), elsewhere this rank's subtree (free it); MINE: this rank's head and its local ids mapped to
 * global ones (malloc'ed). 1 on every rank, or 0 on every rank when a blob was damaged or memory
 * ran out somewhere (MINE->ids NULL). */
int trc_defs_tree_merge(MPI_Comm comm, const char *blob, size_t len, struct trc_merged *merged,
                        struct trc_rank_map *mine);

#endif
