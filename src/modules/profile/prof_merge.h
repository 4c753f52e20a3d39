/* prof_merge.h: the wire form of one or more ranks' profiles, merged along a binomial
 * tree at MPI_Finalize (prof_merge.c) and written by rank 0 (prof_db.c).
 */
#ifndef PROF_MERGE_H
#define PROF_MERGE_H

#include <stddef.h>
#include <mpi.h>
#include <stdint.h>

struct wire_rank {
    int32_t rank;
    char host[64];
    double net_s, mpi_s;
};

/* A communicator, deduplicated across ranks by (root, hash, ordinal). */
struct wire_comm {
    int32_t root, ordinal;
    uint64_t hash;
    int32_t letter;
    int32_t root_counter; /* the root's creation counter, -1 until the root's copy is merged */
    int32_t size;
    int32_t members_off; /* into the members pool */
};

struct wire_row {
    int32_t rank, comm; /* comm: index into comms */
    int16_t op, bucket;
    uint64_t calls, time_ns, max_ns, volume;
};

struct profile_set {
    struct wire_rank *ranks;
    struct wire_comm *comms;
    struct wire_row *rows;
    int32_t *members;
    size_t nranks, ncomms, nrows, nmembers;
};

/* This rank's data. */
void prof_collect(struct profile_set *set, int rank, double net_s);
/* Merges every rank's set into rank 0's along a binomial tree over MPI_COMM_WORLD.
 * Returns 1 on rank 0 (set then holds everything), 0 elsewhere. */
int prof_tree_merge(struct profile_set *set, MPI_Comm comm);
void prof_set_free(struct profile_set *set);
/* Writes the merged set into DIR/mpilens.db; 0 or -1 with err. */
int prof_db_write(const struct profile_set *set, const char *dir, double wall, char *err,
                  size_t errlen);

#endif
