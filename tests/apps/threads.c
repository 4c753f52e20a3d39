/* threads.c: MPI_THREAD_MULTIPLE under the stack. Ranks pair up (0-1, 2-3, ...); on each
 * rank THREADS threads exchange MESSAGES messages with the partner's same thread (tag =
 * thread id), checking every payload: an Isend, a Recv and a Wait each, or with "sendrecv"
 * one MPI_Sendrecv of 64 B each. Usage: threads [THREADS] [MESSAGES] [sendrecv]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, partner, messages, sendrecv;
static int errors[64];

static void *exchange(void *arg)
{
    int id = (int)(long)arg;
    for (int m = 0; m < messages; m++) {
        int out = rank * 1000000 + id * 10000 + m, in = -1, rank_in_comm;
        if (sendrecv) {
            int out16[16] = {out}, in16[16];
            MPI_Sendrecv(out16, 16, MPI_INT, partner, id, in16, 16, MPI_INT, partner, id,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            in = in16[0];
        } else {
            MPI_Request req;
            MPI_Isend(&out, 1, MPI_INT, partner, id, MPI_COMM_WORLD, &req);
            MPI_Recv(&in, 1, MPI_INT, partner, id, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_in_comm);
        errors[id] += in != partner * 1000000 + id * 10000 + m || rank_in_comm != rank;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4, provided, size;
    messages = argc > 2 ? atoi(argv[2]) : 1000;
    sendrecv = argc > 3 && strcmp(argv[3], "sendrecv") == 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size % 2 || threads > 64) {
        if (rank == 0)
            printf("threads SKIP: provided=%d size=%d\n", provided, size);
        MPI_Finalize();
        return 0;
    }
    partner = rank ^ 1;
    pthread_t tid[64];
    for (long t = 0; t < threads; t++)
        pthread_create(&tid[t], NULL, exchange, (void *)t);
    int bad = 0, total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        bad += errors[t];
    }
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads %s: %d ranks x %d threads x %d messages\n", total ? "CORRUPT" : "ok", size,
               threads, messages);
    MPI_Finalize();
    return total != 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
