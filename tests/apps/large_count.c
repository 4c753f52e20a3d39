/* large_count.c: MPI-4's large-count point-to-point (issue 51): rank 0 sends 2^31 + 8
 * bytes to rank 1 with one MPI_Send_c (a count no int holds), rank 1 receives them with
 * MPI_Recv_c and checks both ends of the buffer; prints "large_count ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const MPI_Count count = ((MPI_Count)1 << 31) + 8;
    char *buf = malloc((size_t)count);
    if (!buf) {
        fprintf(stderr, "large_count: no memory for %lld bytes\n", (long long)count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        buf[0] = 'x';
        buf[count - 1] = 'y';
        MPI_Send_c(buf, count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Count got = 0;
        MPI_Status status;
        MPI_Recv_c(buf, count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &status);
        MPI_Get_count_c(&status, MPI_BYTE, &got);
        if (buf[0] != 'x' || buf[count - 1] != 'y' || got != count) {
            fprintf(stderr, "large_count: received wrong\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("large_count ok\n");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
