/* reorder_app.c: the dynamic placement call. On 4 ranks, ranks 0 and 3 exchange 1 MiB and
 * ranks 1 and 2 exchange 1 MiB (little else), then mpilens_monitor_reorder proposes new
 * ranks; partners must become neighbours sharing a core of the tree (new ranks 2m, 2m+1).
 * Without mpilens the call returns -1 and the application goes on.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpilens.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = size - 1 - rank;
    char *buf = calloc(1 << 20, 1), *in = calloc(1 << 20, 1);
    MPI_Sendrecv(buf, 1 << 20, MPI_BYTE, partner, 0, in, 1 << 20, MPI_BYTE, partner, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(buf, 8, MPI_BYTE, (rank + 1) % size, 1, in, 8, MPI_BYTE, (rank + size - 1) % size,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm world = MPI_COMM_WORLD;
    int key = -1, rc = mpilens_monitor_reorder(&world, &key), keys[64];
    MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm better;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rc == 0 ? key : rank, &better);
    int new_rank;
    MPI_Comm_rank(better, &new_rank);
    if (rank == 0) {
        int paired = 1;
        for (int r = 0; r < size; r++)
            paired &= keys[r] / 2 == keys[size - 1 - r] / 2;
        printf("reorder rc=%d: new ranks", rc);
        for (int r = 0; r < size; r++)
            printf(" %d", keys[r]);
        printf("; partners paired: %d\n", rc == 0 && paired);
    }
    MPI_Comm_free(&better);
    free(buf);
    free(in);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
