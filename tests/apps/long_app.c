/* long_app.c: a long job for the tests of how runs end (any number of ranks): STEPS steps
 * (argument 1, default 60) of a ring exchange of 1 KiB and an MPI_Allreduce, 50 ms apart.
 * Rank 0 prints "long_app step N" every 10 steps and "long_app ok" at the end. Argument 2
 * makes rank 1 end at step 30: exit (exit(3) without MPI_Finalize), abort (MPI_Abort with
 * 4), segv (a write through a null pointer), kill (SIGKILL to itself).
 */
#include <mpi.h>
#include <stdio.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, steps = argc > 1 ? atoi(argv[1]) : 60;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char out[1024] = {0}, in[1024];
    const char *end = argc > 2 ? argv[2] : "";
    for (int step = 0; step < steps; step++) {
        if (rank == 1 && step == 30) {
            if (strcmp(end, "exit") == 0)
                exit(3);
            if (strcmp(end, "abort") == 0)
                MPI_Abort(MPI_COMM_WORLD, 4);
            if (strcmp(end, "segv") == 0)
                *(volatile int *)(uintptr_t)(argc - argc) = 1;
            if (strcmp(end, "kill") == 0)
                raise(SIGKILL);
        }
        MPI_Sendrecv(out, sizeof out, MPI_CHAR, (rank + 1) % size, 0, in, sizeof in, MPI_CHAR,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && step % 10 == 0) {
            printf("long_app step %d\n", step);
            fflush(stdout);
        }
        usleep(50000);
    }
    if (rank == 0)
        printf("long_app ok\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
