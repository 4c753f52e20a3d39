/* scaling_app.c: a program of known scaling (docs/efficiency.md, "A program of known
 * scaling"), whose work and waits are timed sleeps, so that an oversubscribed machine
 * does not change it, and with few messages in a row, so that a busy-polling MPI's turns
 * of the scheduler add little. On P ranks, with W, S and C in milliseconds (default 4800,
 * 300 and 100):
 *   work:       each rank computes W / P (a fixed total split evenly);
 *   serial:     rank 0 computes S while the others wait in MPI_Bcast from it (no barrier
 *               before: every rank's work lasts as long);
 *   collective: a collective of a fixed cost a rank: its root, the last rank, combines the
 *               P contributions for C each (P x C) while the others wait in MPI_Bcast.
 * Prints "scaling_app ok: P ranks".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void compute(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double work = argc > 1 ? atof(argv[1]) : 4800, serial = argc > 2 ? atof(argv[2]) : 300,
           each = argc > 3 ? atof(argv[3]) : 100;
    compute(work / size);
    if (rank == 0)
        compute(serial);
    MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == size - 1)
        compute(each * size);
    MPI_Bcast(&token, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    if (rank == 0)
        printf("scaling_app ok: %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
