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
    double net_s, mpi_s;
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
void prof_set_free(struct profile_set *set);
/* Merges one packed set of LEN bytes (a rank's snapshot) after checking its counts and
 * indices against LEN; 1, or 0 when it is damaged. */
int prof_merge_packed_checked(struct profile_set *set, const char *buf, size_t len);
/* Bytes of the packed set at BUF (from its counts), or 0 if they do not fit in LEN. */
size_t prof_packed_size(const char *buf, size_t len);
/* The command line the metadata records (a snapshot's, at recovery); NULL: this process's. */
extern const char *prof_run_command;
/* Writes the merged set and the call sites (SITES, NULL: none) into DIR/mpilens.db, in one
 * transaction: all or nothing. 0, or -1 with err ("PATH: SQLite: database or disk is full
 * (No space left on device)"). */
struct prof_sites_blob;
int prof_db_write(const struct profile_set *set, const char *dir, double wall,
                  const struct prof_sites_blob *sites, char *err, size_t errlen);

#endif
