/* comms_app.c: communicator life cycles for the profile tests, on 8 ranks.
 * 1. The mpisee paper's Listing 1: 30 Allreduce on MPI_COMM_WORLD, then split in halves
 *    (rank / 4) and 100 Allreduce in each half.
 * 2. Nested split: each half split again in quarters (1 Barrier each).
 * 3. Dup of a dup of world (1 Barrier on the second), an idup of world (1 Barrier).
 * 4. A 2x4 Cartesian grid and its rows (cart_sub), 1 Allreduce on each row.
 * 5. create_group on ranks {0,1,2}: 1 Bcast of 4 B.
 * 6. An intercommunicator between the halves: rank i sends 8 B to rank i of the other
 *    half ... only the low half sends, the high half receives.
 * 7. Non-blocking collectives on world: Ibcast (4 B) and Iallreduce (8 B), then Waitall.
 * 8. MPI_COMM_SELF: 1 Allreduce of 4 B. Waitall with count 0 on no requests.
 * 9. Testany/Testall on a receive that is only satisfied later: must not block.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x = rank, y;
    for (int i = 0; i < 30; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm half, quarter, dup1, dup2, idup, grid, row, group3, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank / (size / 2), rank, &half);
    for (int i = 0; i < 100; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, half);

    int hrank;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_split(half, hrank / 2, hrank, &quarter);
    MPI_Barrier(quarter);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
    MPI_Comm_dup(dup1, &dup2);
    MPI_Barrier(dup2);
    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(idup);

    int dims[2] = {2, size / 2}, periods[2] = {0, 0}, remain[2] = {0, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_sub(grid, remain, &row);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, row);

    MPI_Group world_group, first3;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int three[3] = {0, 1, 2};
    MPI_Group_incl(world_group, 3, three, &first3);
    if (rank < 3) {
        MPI_Comm_create_group(MPI_COMM_WORLD, first3, 9, &group3);
        int v = 0;
        MPI_Bcast(&v, 1, MPI_INT, 0, group3);
        MPI_Comm_free(&group3);
    }
    MPI_Group_free(&first3);
    MPI_Group_free(&world_group);

    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 11, &inter);
    double msg = rank;
    if (rank < size / 2)
        MPI_Send(&msg, 1, MPI_DOUBLE, hrank, 0, inter);
    else
        MPI_Recv(&msg, 1, MPI_DOUBLE, hrank, 0, inter, MPI_STATUS_IGNORE);

    MPI_Request nb[2];
    int b = 7;
    MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &nb[0]);
    MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &nb[1]);
    MPI_Waitall(2, nb, MPI_STATUSES_IGNORE);

    int s = 1, t;
    MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE);

    /* Testany/Testall must not block: the message comes only after a barrier. */
    int late = 0, index, flag = 1, partner = rank ^ 1;
    MPI_Request lr;
    MPI_Irecv(&late, 1, MPI_INT, partner, 42, MPI_COMM_WORLD, &lr);
    MPI_Testany(1, &lr, &index, &flag, MPI_STATUS_IGNORE);
    int early_any = flag;
    MPI_Testall(1, &lr, &flag, MPI_STATUSES_IGNORE);
    int early_all = flag;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&rank, 1, MPI_INT, partner, 42, MPI_COMM_WORLD);
    MPI_Wait(&lr, MPI_STATUS_IGNORE);

    MPI_Comm_free(&inter);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup1);
    MPI_Comm_free(&quarter);
    MPI_Comm_free(&half);
    int flags[2] = {early_any, early_all}, all[2];
    MPI_Reduce(flags, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("comms_app ok: %d ranks, tests completed early: %d %d\n", size, all[0], all[1]);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
