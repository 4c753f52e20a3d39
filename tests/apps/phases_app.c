/* phases_app.c: the program of the `mpilens top` tests (4 ranks or more): it changes what it
 * does every SECONDS (argument 1, default 3): phase 1, a ring of MPI_Sendrecv on the world
 * (4 KiB to the next rank every 10 ms); phase 2, MPI_Allreduce of 4 KiB on a split
 * communicator (even and odd ranks) every 10 ms; a phase is SECONDS x 100 such steps (a
 * little longer than SECONDS: the steps' own time adds), so that no other call (a
 * broadcast deciding when to switch) competes with the phase's own. Rank 0 prints
 * "phases_app phase N" when a phase starts and "phases_app ok" at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    static char out[4096], in[4096];
    for (int phase = 1; phase <= 2; phase++) {
        if (rank == 0) {
            printf("phases_app phase %d\n", phase);
            fflush(stdout);
        }
        for (long step = 0; step < (long)(seconds * 100); step++) {
            if (phase == 1)
                MPI_Sendrecv(out, sizeof out, MPI_CHAR, (rank + 1) % size, 0, in, sizeof in,
                             MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            else
                MPI_Allreduce(out, in, sizeof out, MPI_CHAR, MPI_MAX, half);
            usleep(10000);
        }
    }
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("phases_app ok\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
