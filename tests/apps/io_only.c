/* io_only.c: MPI-IO and nothing else: each rank writes 1 KiB of the file argv[1] at offset
 * rank x 1024 through its own handle (the matrix of such a run has only the io kind). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    char buf[1024] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File fh;
    MPI_File_open(MPI_COMM_SELF, argc > 1 ? argv[1] : "io.out", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                  MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, rank * 1024, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
