/* chain_probe.c: prints, for a few MPI functions, how many modules a call visits
 * (mpilens_chain_length; 0 means the shortcut straight to the library), then runs a
 * ring so the stack is exercised. Works without mpilens too (prints "not loaded").
 */
#include <mpi.h>
#include <stdio.h>

#include "mpilens.h"

int main(int argc, char **argv)
{
    static const char *const names[] = {"MPI_Send",      "MPI_Recv",  "MPI_Barrier",
                                        "MPI_Allreduce", "MPI_Wtime", "MPI_Pcontrol"};
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (!mpilens_loaded()) {
            printf("chain: not loaded\n");
        } else {
            printf("chain: modules=%d\n", mpilens_module_count());
            for (size_t i = 0; i < sizeof names / sizeof *names; i++)
                printf("chain: %s=%d\n", names[i], mpilens_chain_length(names[i]));
        }
    }
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
