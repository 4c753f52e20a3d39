/* pcontrol_app.c: MPI_Pcontrol's levels as mpiP users call them, on a ring of 1 KiB
 * Sendrecv steps (each rank sends one message to its right neighbour a step):
 *   3 steps; Pcontrol(0); 7 steps; Pcontrol(1); 5 steps; Pcontrol(3); Pcontrol(4);
 *   2 steps; Pcontrol(2); 4 steps; MPI_Finalize.
 * Obeyed, the two intermediate results hold 8 steps and the final one 4; ignored, the
 * final one holds all 21. "pcontrol_app off-on" is mpiP's plain case: Pcontrol(0); 7 steps;
 * Pcontrol(1); 5 steps (5 recorded). Checks every payload. Usage: pcontrol_app [off-on]
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size, bad;

static void steps(int n)
{
    char out[1024], in[1024];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int s = 0; s < n; s++) {
        for (int i = 0; i < 1024; i++)
            out[i] = (char)(rank + i + s);
        MPI_Sendrecv(out, 1024, MPI_CHAR, right, 0, in, 1024, MPI_CHAR, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < 1024; i++)
            bad += in[i] != (char)(left + i + s);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "off-on") == 0) {
        MPI_Pcontrol(0);
        steps(7);
        MPI_Pcontrol(1);
        steps(5);
    } else {
        steps(3);
        MPI_Pcontrol(0);
        steps(7);
        MPI_Pcontrol(1);
        steps(5);
        MPI_Pcontrol(3);
        MPI_Pcontrol(4);
        steps(2);
        MPI_Pcontrol(2);
        steps(4);
    }
    if (rank == 0)
        printf("pcontrol_app %s: %d ranks\n", bad ? "FAILED" : "ok", size);
    MPI_Finalize();
    return bad != 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
