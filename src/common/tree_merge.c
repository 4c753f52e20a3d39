/* tree_merge.c: the binomial-tree gather of tree_merge.h, on PMPI calls only. */
#include <stdlib.h>

#include "tree_merge.h"

int lens_tree_merge(MPI_Comm comm, void *ctx, const struct lens_merge_ops *ops)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const int tag = 1;
    for (int step = 1; step < size; step <<= 1) {
        if (rank & step) {
            int len;
            void *buf = ops->pack(ctx, &len);
            PMPI_Send(buf, len, MPI_BYTE, rank - step, tag, comm);
            free(buf);
            return 0;
        }
        if (rank + step < size) {
            MPI_Status status;
            int len;
            PMPI_Probe(rank + step, tag, comm, &status);
            PMPI_Get_count(&status, MPI_BYTE, &len);
            char *buf = malloc(len > 0 ? len : 1);
            PMPI_Recv(buf, len, MPI_BYTE, rank + step, tag, comm, MPI_STATUS_IGNORE);
            ops->absorb(ctx, buf, len);
            free(buf);
        }
    }
    return rank == 0;
}
