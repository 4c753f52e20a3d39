/* waits_app.c: one wait state, injected with usleep, for the analysis tests (4 ranks).
 * Every scenario first synchronizes (Barrier; Allreduce in the barrier scenario), then:
 *   late-sender    rank 0 sleeps 50 ms, then sends to rank 1, which receives at once
 *   late-receiver  rank 1 sleeps 50 ms before receiving rank 0's MPI_Ssend
 *   allreduce      rank 2 sleeps 50 ms before an Allreduce
 *   barrier        rank 1 sleeps 50 ms before a Barrier
 *   bcast          the root (0) sleeps 50 ms before a Bcast
 *   reduce         all but the root (0) sleep 50 ms before a Reduce
 *   many-regions   100 user regions entered and left first, then late-sender (the
 *                  analysis must not be limited to a fixed number of regions or phases)
 *   none           the same communication without any sleep
 * After the first synchronization everything runs inside a user region named after the
 * scenario (mpilens_trace_region + MPI_Pcontrol), so the analysis can attribute it.
 * Usage: waits_app SCENARIO
 */
#include <mpi.h>
#include <mpilens.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *s = argc > 1 ? argv[1] : "none";
    int delay = strcmp(s, "none") != 0 ? 50000 : 0;
    if (strcmp(s, "barrier") == 0)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    int many = strcmp(s, "many-regions") == 0;
    for (int i = 0; many && i < 100; i++) {
        char name[32];
        snprintf(name, sizeof name, "region %d", i);
        mpilens_trace_region(name);
        MPI_Pcontrol(1);
        MPI_Pcontrol(0);
    }
    mpilens_trace_region(s);
    MPI_Pcontrol(1);
    if (strcmp(s, "late-sender") == 0 || many || strcmp(s, "none") == 0) {
        if (rank == 0) {
            usleep(delay);
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (strcmp(s, "late-receiver") == 0 || strcmp(s, "none") == 0) {
        if (rank == 0) {
            MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        } else if (rank == 1) {
            usleep(delay);
            MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (strcmp(s, "allreduce") == 0 || strcmp(s, "none") == 0) {
        if (rank == 2)
            usleep(delay);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (strcmp(s, "barrier") == 0) {
        if (rank == 1)
            usleep(delay);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (strcmp(s, "bcast") == 0 || strcmp(s, "none") == 0) {
        if (rank == 0)
            usleep(delay);
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (strcmp(s, "reduce") == 0 || strcmp(s, "none") == 0) {
        if (rank != 0)
            usleep(delay);
        MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    MPI_Pcontrol(0);
    if (rank == 0)
        printf("waits_app ok: %s\n", s);
    MPI_Finalize();
    return 0;
}
