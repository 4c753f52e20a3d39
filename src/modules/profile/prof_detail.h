/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_detail.h: how much of each rank's profile is kept, and who writes it
 * (prof_detail.c, docs/scaling.md).
 */
#ifndef PROF_DETAIL_H
#define PROF_DETAIL_H

#include <mpi.h>
#include <stddef.h>

#include "prof_merge.h"

enum prof_detail { PROF_DETAIL_RANKS, PROF_DETAIL_SHARDS, PROF_DETAIL_SUMMARY };

/* The module arguments detail= and shard=: 0, or -1 with WHY. */
int prof_detail_check(const char *key, const char *value, char *why, size_t len);
/* The detail kept for a run of NRANKS ranks (MPILENS_PROFILE_DETAIL, MPILENS_PROFILE_SHARD:
 * set from the module arguments), with the ranks per shard. */
enum prof_detail prof_detail_policy(int nranks, int *shard_ranks);
/* At MPI_Finalize, collective over COMM (a duplicate of MPI_COMM_WORLD): merges and writes
 * this rank's SET as the policy says. 1 when everything was written on every rank. */
int prof_detail_finalize(struct profile_set *set, MPI_Comm comm, double wall);
/* The recovery (one process, every rank's SET and SITES): the same files, shards one
 * after the other. 0, or -1 with ERR. */
struct prof_sites_blob;
int prof_detail_recovered(const struct profile_set *set, const struct prof_sites_blob *sites,
                          int world, double wall, const char *dir, char *err, size_t errlen);

#endif
