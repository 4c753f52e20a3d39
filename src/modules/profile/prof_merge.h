/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_merge.h: the wire form of one or more ranks' profiles, merged along a binomial
 * tree at MPI_Finalize (prof_merge.c) and written by rank 0 (prof_db.c).
 */
#ifndef PROF_MERGE_H
#define PROF_MERGE_H

#include <stddef.h>
#include <mpi.h>

#include "commtrack.h"
#include <stdint.h>

struct wire_rank {
    int32_t rank;
    char host[64];
    double net_s, mpi_s, startup_s; /* startup_s: in MPI_Init or MPI_Init_thread */
};

struct wire_row {
    int32_t rank, comm; /* comm: index into comms */
    int16_t op, bucket;
    uint64_t calls, time_ns, max_ns, volume;
};

struct profile_set {
    struct wire_rank *ranks;
    struct wire_row *rows;
    size_t nranks, nrows;
    struct lens_comm_set comms; /* the communicators rows refer to (commtrack.h) */
};

/* 1 when the record C goes into the merge and the snapshots (it holds data, or it is
 * MPI_COMM_WORLD), with its data in *DATA (NULL if none). Async-signal-safe. */
struct prof_rows;
int prof_carried(struct lens_comm *c, struct prof_rows **data);
/* This rank's data. */
void prof_collect(struct profile_set *set, int rank, double net_s);
/* Merges every rank's set into rank 0's along a binomial tree over MPI_COMM_WORLD.
 * Returns 1 on rank 0 (set then holds everything), 0 elsewhere. */
int prof_tree_merge(struct profile_set *set, MPI_Comm comm);
/* The wire form shared by the rows and the summary (prof_summary.c): four 64-bit counts
 * (ranks, communicators, rows, members), then the ranks, communicators, rows of ROW_SIZE
 * bytes and members. prof_pack: a malloc'ed message of *LEN bytes (NULL, *LEN 0 and said
 * when out of memory). prof_unpack: the ranks of BUF appended to *RANKS, its communicators
 * added to COMMS; *ROWS points into BUF; returns each communicator's index in COMMS (-1:
 * not added), malloc'ed, or NULL. */
void *prof_pack(const struct wire_rank *ranks, size_t nranks, const struct lens_comm_set *c,
                const void *rows, size_t nrows, size_t row_size, size_t *len);
int *prof_unpack(const char *buf, size_t row_size, struct wire_rank **ranks, size_t *nranks,
                 struct lens_comm_set *comms, const void **rows, uint64_t *nrows);
/* A packed message absorbed: its ranks and communicators as prof_unpack, its rows of
 * ROW_SIZE bytes (an int32 communicator index at COMM_AT) appended to *ROWS (*NROWS) with
 * their communicators mapped into COMMS. */
void prof_absorb_rows(const char *buf, size_t row_size, size_t comm_at, struct wire_rank **ranks,
                      size_t *nranks, struct lens_comm_set *comms, void **rows, size_t *nrows);
void prof_set_free(struct profile_set *set);
/* Merges one packed set of LEN bytes (a rank's snapshot) after checking its counts and
 * indices against LEN; 1, or 0 when it is damaged. */
int prof_merge_packed_checked(struct profile_set *set, const char *buf, size_t len);
/* Bytes of the packed set at BUF (from its counts), or 0 if they do not fit in LEN. */
size_t prof_packed_size(const char *buf, size_t len);
/* The command line the metadata records (a snapshot's, at recovery); NULL: this process's. */
extern const char *prof_run_command;
/* What one database of the profile holds (prof_db.c): every rank's rows and call sites
 * (ROWS, SITES: NULL when they are not kept in it), the rows and sites reduced over ranks
 * (NULL: none, as in a shard), the ranks table, of ranks FIRST_RANK..LAST_RANK only
 * (PROCESSES of them: the metadata);
 * DETAIL the metadata `Profile detail` (ranks, shards, summary) with SHARD_RANKS; SHARD_OF:
 * the world's size when this is a shard, else 0. */
struct prof_summary;
struct prof_sites_blob;
struct prof_db_parts {
    const struct profile_set *rows;
    const struct prof_sites_blob *sites;
    const struct prof_summary *summary;
    const struct prof_sites_blob *site_summary;
    const struct wire_rank *ranks;
    size_t nranks;
    int first_rank, last_rank;
    int processes; /* metadata `Processes` */
    const char *detail;
    int shard_ranks, shard_of;
};
/* Writes P into DIR/FILE in one transaction: all or nothing. 0, or -1 with err ("PATH:
 * SQLite: database or disk is full (No space left on device)"). */
int prof_db_write(const char *dir, const char *file, double wall, const struct prof_db_parts *p,
                  char *err, size_t errlen);

#endif
