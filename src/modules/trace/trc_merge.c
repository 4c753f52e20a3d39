/* trc_merge.c: the definitions each rank makes on its own while the run goes (windows,
 * groups, user regions) get global ids at MPI_Finalize, and every rank writes the mapping
 * from its local ids to the global ones (an OTF2 mapping table, which readers apply).
 */
#include <stdlib.h>

#include "trc.h"

void trc_merge_ids(MPI_Comm world, const void *mine, int len, uint32_t nlocal,
                   uint32_t (*next_global)(const char **cursor), uint32_t *ids)
{
    int rank, size;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    int sizes[2] = {len, (int)nlocal}, *all_sizes = NULL, *lens = NULL, *displs = NULL;
    int *counts = NULL, *map_displs = NULL;
    char *all = NULL;
    uint32_t *maps = NULL;
    if (rank == 0) {
        all_sizes = malloc(2 * size * sizeof *all_sizes);
        lens = malloc(size * sizeof *lens);
        displs = malloc(size * sizeof *displs);
        counts = malloc(size * sizeof *counts);
        map_displs = malloc(size * sizeof *map_displs);
    }
    PMPI_Gather(sizes, 2, MPI_INT, all_sizes, 2, MPI_INT, 0, world);
    if (rank == 0) {
        int total = 0, nmaps = 0;
        for (int r = 0; r < size; r++) {
            lens[r] = all_sizes[2 * r];
            counts[r] = all_sizes[2 * r + 1];
            displs[r] = total;
            total += lens[r];
            map_displs[r] = nmaps;
            nmaps += counts[r];
        }
        all = malloc(total + 1);
        maps = malloc((nmaps + 1) * sizeof *maps);
    }
    PMPI_Gatherv(mine, len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, world);
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            const char *cursor = all + displs[r];
            for (int i = 0; i < counts[r]; i++)
                maps[map_displs[r] + i] = next_global(&cursor);
        }
    PMPI_Scatterv(maps, counts, map_displs, MPI_UINT32_T, ids, (int)nlocal, MPI_UINT32_T, 0, world);
    free(all_sizes);
    free(lens);
    free(displs);
    free(counts);
    free(map_displs);
    free(all);
    free(maps);
}

void trc_write_id_map(OTF2_DefWriter *dw, OTF2_MappingType type, const uint32_t *map, uint32_t n)
{
    if (n == 0)
        return;
    OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, n);
    for (uint32_t i = 0; i < n; i++)
        OTF2_IdMap_AddIdPair(m, i, map[i]);
    OTF2_DefWriter_WriteMappingTable(dw, type, m);
    OTF2_IdMap_Free(m);
}
