/* large_count.c: MPI-4's large-count point-to-point (issue 51): rank 0 sends 2^31 + 8
 * bytes to rank 1 with one MPI_Send_c (a count no int holds), rank 1 receives them with
 * MPI_Recv_c and checks both ends of the buffer; prints "large_count ok". Where the library
 * has no large-count functions (Open MPI 5.0; MPILENS_HAS_LARGE_COUNT unset), the same bytes go as
 * 2^28 + 1 elements of an 8-byte contiguous type with MPI_Send/MPI_Recv: byte counts past
 * 2^31 from count x type size.
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
#ifndef MPILENS_HAS_LARGE_COUNT
    MPI_Datatype eight;
    MPI_Type_contiguous(8, MPI_BYTE, &eight);
    MPI_Type_commit(&eight);
    const int elements = (int)(count / 8);
#endif
    if (rank == 0) {
        buf[0] = 'x';
        buf[count - 1] = 'y';
#ifdef MPILENS_HAS_LARGE_COUNT
        MPI_Send_c(buf, count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
#else
        MPI_Send(buf, elements, eight, 1, 0, MPI_COMM_WORLD);
#endif
    } else if (rank == 1) {
        MPI_Count got = 0;
        MPI_Status status;
#ifdef MPILENS_HAS_LARGE_COUNT
        MPI_Recv_c(buf, count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &status);
        MPI_Get_count_c(&status, MPI_BYTE, &got);
#else
        int n = 0;
        MPI_Recv(buf, elements, eight, 0, 0, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, eight, &n);
        got = (MPI_Count)n * 8;
#endif
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
/* SPDX-License-Identifier: BSD-3-Clause */
