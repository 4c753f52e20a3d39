/* tree_merge.c: the binomial-tree gather of tree_merge.h, on PMPI calls only. */
#include <stdlib.h>

#include "run_output.h"
#include "tree_merge.h"

/* A receiver without memory for a message still takes it (the sender and the tree must
 * not hang): into a byte, the truncation returned instead of raised, and says whose
 * records (the sender's subtree, ranks FIRST..LAST of COMM) are lost. */
static void drop_message(MPI_Comm comm, int from, int tag, int first, int last)
{
    MPI_Errhandler was;
    PMPI_Comm_get_errhandler(comm, &was);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    char byte;
    PMPI_Recv(&byte, 1, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
    PMPI_Comm_set_errhandler(comm, was);
    PMPI_Errhandler_free(&was);
    lens_run_problem("merge",
                     "mpilens: out of memory merging the records of ranks %d-%d: they are "
                     "missing from the database (the results are incomplete)",
                     first, last);
}

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
            if (!buf) {
                int last = rank + 2 * step - 1 < size ? rank + 2 * step - 1 : size - 1;
                drop_message(comm, rank + step, tag, rank + step, last);
                continue;
            }
            PMPI_Recv(buf, len, MPI_BYTE, rank + step, tag, comm, MPI_STATUS_IGNORE);
            ops->absorb(ctx, buf, len);
            free(buf);
        }
    }
    return rank == 0;
}
