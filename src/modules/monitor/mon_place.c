/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_place.c: the dynamic use of placement (the paper's section 6): inside the run, the
 * members of a communicator share the traffic monitored between them (one allgather), and
 * every member runs TreeMatch on the same matrix over this machine's hwloc topology (more
 * ranks than cores: several per core), so all agree on the new order without another
 * message. Returns this process's new rank, to be used as an MPI_Comm_split key.
 */
#include <stdlib.h>
#include <string.h>

#include "mon.h"
#include "place.h"

int mon_reorder(const void *comm_handle, int *new_rank)
{
    MPI_Comm comm = *(const MPI_Comm *)comm_handle;
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    uint64_t *c = calloc(2 * (size_t)mon_nprocs + 1, sizeof *c), *b = c + mon_nprocs;
    double *row = calloc(n, sizeof *row), *all = malloc((size_t)n * n * sizeof *all);
    for (int kind = MON_P2P; kind <= MON_RMA_SENT; kind++) {
        mon_read(kind, c, b, mon_nprocs);
        for (int j = 0; j < n; j++) {
            int w = mon_world_rank(comm, j);
            if (w >= 0)
                row[j] += (double)b[w];
        }
    }
    PMPI_Allgather(row, n, MPI_DOUBLE, all, n, MPI_DOUBLE, comm);
    int *src = malloc((size_t)n * n * sizeof *src), *dst = malloc((size_t)n * n * sizeof *dst);
    double *value = malloc((size_t)n * n * sizeof *value);
    size_t m = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (all[(size_t)i * n + j] > 0) {
                src[m] = i;
                dst[m] = j;
                value[m++] = all[(size_t)i * n + j];
            }
    struct place_topo topo;
    struct place_graph g;
    char err[256];
    int rc = place_topo_load(&topo, "this", err, sizeof err);
    if (rc == 0) {
        if (n > topo.leaves)
            place_topo_oversubscribe(&topo, (n + topo.leaves - 1) / topo.leaves);
        place_graph_build(&g, n, src, dst, value, m);
        int *leaf = malloc(n * sizeof *leaf);
        place_treematch(&g, &topo, leaf);
        *new_rank = 0; /* ranks numbered in core order */
        for (int r = 0; r < n; r++)
            *new_rank += leaf[r] < leaf[me];
        free(leaf);
        place_graph_free(&g);
    }
    free(c);
    free(row);
    free(all);
    free(src);
    free(dst);
    free(value);
    return rc;
}
