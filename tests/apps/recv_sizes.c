/* recv_sizes.c: receives whose size comes from their status, for the profile's keyed
 * receives (2 ranks). Rank 0 sends from one call site 2, 2, 50, 2, 2, 2 elements of a
 * 24-byte type (a size that is not a power of two), then 10 bytes, then twice 100 elements;
 * rank 1 receives the six with one call site and a status (posted 100 elements: the bytes
 * are the status's, 48 or 1200), the 10 bytes as MPI_INT with a status (not a whole number
 * of ints: charged the posted 4 ints, 16 bytes), and the last two with MPI_STATUS_IGNORE
 * (the posted 2400 bytes); then one call site with a status, once ignored (a key whose
 * posted bytes are outside the bucket of the bytes it got).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_DOUBLE, &three);
    MPI_Type_commit(&three);
    static double buf[300];
    const int counts[6] = {2, 2, 50, 2, 2, 2};
    MPI_Status st;
    for (int i = 0; i < 6; i++) {
        if (rank == 0)
            MPI_Send(buf, counts[i], three, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(buf, 100, three, 0, 0, MPI_COMM_WORLD, &st);
    }
    if (rank == 0)
        MPI_Send(buf, 10, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(buf, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 2; i++) {
        if (rank == 0)
            MPI_Send(buf, 100, three, 1, 2, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(buf, 100, three, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* One call site whose status is once ignored: posted 100 elements, got 2, 2, then
     * (ignored) the posted 2400 bytes, then 2 again. */
    for (int i = 0; i < 4; i++) {
        if (rank == 0)
            MPI_Send(buf, i == 2 ? 100 : 2, three, 1, 3, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(buf, 100, three, 0, 3, MPI_COMM_WORLD, i == 2 ? MPI_STATUS_IGNORE : &st);
    }
    MPI_Type_free(&three);
    if (rank == 0)
        printf("recv_sizes ok\n");
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
