/* SPDX-License-Identifier: BSD-3-Clause */
/* tree_merge.c: the binomial-tree gather of tree_merge.h, on PMPI calls only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "run_output.h"
#include "tree_merge.h"

/* States of PIECE bytes or more travel in pieces; MPILENS_MERGE_PIECE (tests only) makes
 * the pieces small, so that a test of a few ranks runs the path of a huge job. */
static size_t piece_size(void)
{
    static size_t piece;
    if (!piece) {
        const char *env = getenv("MPILENS_MERGE_PIECE");
        long long n = env ? atoll(env) : 0;
        piece = n > 0 && n < (1ll << 30) ? (size_t)n : (size_t)1 << 30;
    }
    return piece;
}
#define PIECE piece_size()
#define TAG_STATE 1  /* a whole state (under 1 GiB: one message) or a piece of one */
#define TAG_LENGTH 2 /* a state of 1 GiB or more follows in pieces: its length */

static void send_all(const char *buf, size_t len, int to, MPI_Comm comm)
{
    if (len >= PIECE) {
        uint64_t total = len;
        PMPI_Send(&total, 1, MPI_UINT64_T, to, TAG_LENGTH, comm);
    }
    size_t at = 0;
    do {
        size_t n = len - at < PIECE ? len - at : PIECE;
        PMPI_Send(buf + at, (int)n, MPI_BYTE, to, TAG_STATE, comm);
        at += n;
    } while (at < len);
}

/* The length of the state FROM sends next (its length message taken, if any). */
static size_t incoming_length(int from, MPI_Comm comm)
{
    MPI_Status status;
    PMPI_Probe(from, MPI_ANY_TAG, comm, &status);
    if (status.MPI_TAG == TAG_LENGTH) {
        uint64_t total = 0;
        PMPI_Recv(&total, 1, MPI_UINT64_T, from, TAG_LENGTH, comm, MPI_STATUS_IGNORE);
        return (size_t)total;
    }
    int count = 0;
    PMPI_Get_count(&status, MPI_BYTE, &count);
    return (size_t)count;
}

/* Receives LEN bytes sent by send_all into BUF; without BUF (no memory), takes each piece
 * into a byte, the truncation returned instead of raised, so the sender and the tree do not
 * hang. */
static void receive_all(char *buf, size_t len, int from, MPI_Comm comm)
{
    MPI_Errhandler was = MPI_ERRHANDLER_NULL;
    char byte;
    if (!buf) {
        PMPI_Comm_get_errhandler(comm, &was);
        PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    }
    size_t at = 0;
    do {
        size_t n = len - at < PIECE ? len - at : PIECE;
        PMPI_Recv(buf ? buf + at : &byte, buf ? (int)n : 1, MPI_BYTE, from, TAG_STATE, comm,
                  MPI_STATUS_IGNORE);
        at += n;
    } while (at < len);
    if (!buf) {
        PMPI_Comm_set_errhandler(comm, was);
        PMPI_Errhandler_free(&was);
    }
}

int lens_tree_merge(MPI_Comm comm, void *ctx, const struct lens_merge_ops *ops)
{
    int rank, size, messages = 0;
    size_t received = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            size_t len = 0;
            void *buf = ops->pack(ctx, &len);
            send_all(buf, buf ? len : 0, rank - step, comm);
            free(buf);
            return 0;
        }
        if (rank + step < size) {
            size_t len = incoming_length(rank + step, comm);
            received += len;
            messages++;
            char *buf = malloc(len > 0 ? len : 1);
            receive_all(buf, len, rank + step, comm);
            if (buf)
                ops->absorb(ctx, buf, len);
            else {
                int last = rank + 2 * step - 1 < size ? rank + 2 * step - 1 : size - 1;
                lens_run_problem("merge",
                                 "mpilens: out of memory merging the records of ranks %d-%d: "
                                 "they are missing from the database (the results are "
                                 "incomplete)",
                                 rank + step, last);
            }
            free(buf);
        }
    }
    /* bench/scale_table.sh: what world rank 0 received (docs/scaling.md) */
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (world_rank == 0 && getenv("MPILENS_MERGE_STATS"))
        fprintf(stderr, "mpilens: merge: rank 0 received %zu bytes in %d messages\n", received,
                messages);
    return rank == 0;
}
