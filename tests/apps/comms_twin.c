/* comms_twin.c: tests/python/apps/comms.py in C (4 ranks): Split, Dup and Cart_create, an
 * Allreduce of 4 doubles in each, and a Waitall of an Isend/Irecv pair of 8 doubles on
 * MPI_COMM_WORLD. Its profile and the Python program's must be identical.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half, dup, cart;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int dims[2] = {2, 2}, periods[2] = {1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm comms[3] = {half, dup, cart};
    double values[4] = {0};
    for (int i = 0; i < 3; i++)
        MPI_Allreduce(MPI_IN_PLACE, values, 4, MPI_DOUBLE, MPI_SUM, comms[i]);
    double out[8] = {0}, in[8];
    MPI_Request pair[2];
    MPI_Isend(out, 8, MPI_DOUBLE, (rank + 1) % 4, 0, MPI_COMM_WORLD, &pair[0]);
    MPI_Irecv(in, 8, MPI_DOUBLE, (rank + 3) % 4, 0, MPI_COMM_WORLD, &pair[1]);
    MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
