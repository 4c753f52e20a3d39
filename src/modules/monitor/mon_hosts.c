/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_hosts.c: where the ranks ran. At MPI_Finalize each rank's host name, and each host's
 * hwloc topology (an hwloc synthetic description, read once per host by its first rank),
 * are gathered on rank 0 for the database (monitor_hosts, host_topologies): `mpilens
 * place` maps the ranks onto the run's nodes and their cores, `mpilens matrix` tells the
 * bytes within a node from the bytes between nodes.
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mon_hosts.h"
#include "rundb_write.h"

/* This machine as an hwloc synthetic description ("Package:1 [NUMANode] L2Cache:2 Core:1 PU:1"), or
 * "". */
static void this_topology(char *out, size_t len)
{
    hwloc_topology_t topo;
    out[0] = '\0';
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0 &&
        hwloc_topology_export_synthetic(topo, out, len,
                                        HWLOC_TOPOLOGY_EXPORT_SYNTHETIC_FLAG_NO_ATTRS) < 0)
        out[0] = '\0';
    hwloc_topology_destroy(topo);
}

int mon_hosts_gather(MPI_Comm comm, struct mon_hosts *h)
{
    memset(h, 0, sizeof *h);
    int rank = 0, size = 0, host_rank = 0, len = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    struct mon_host_row mine;
    memset(&mine, 0, sizeof mine);
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    PMPI_Get_processor_name(name, &len);
    snprintf(mine.host, sizeof mine.host, "%s", name);
    MPI_Comm host_comm;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm);
    PMPI_Comm_rank(host_comm, &host_rank);
    PMPI_Comm_free(&host_comm);
    if (host_rank == 0) /* once per host */
        this_topology(mine.topology, sizeof mine.topology);
    int ok = 1;
    if (rank == 0) {
        h->rows = calloc((size_t)size, sizeof *h->rows);
        ok = h->rows != NULL;
        h->n = ok ? size : 0;
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok)
        return -1;
    /* the rows are small (a host name and a line): one gather, to rank 0 only */
    PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, h->rows, (int)sizeof mine, MPI_BYTE, 0, comm);
    return 0;
}

int mon_hosts_write(struct rundb *run, const struct mon_hosts *h)
{
    int rc = 0;
    for (int r = 0; r < h->n; r++) {
        h->rows[r].host[sizeof h->rows[r].host - 1] = '\0';
        h->rows[r].topology[sizeof h->rows[r].topology - 1] = '\0';
        rc |= rundb_put_rank_host(run, r, h->rows[r].host);
        if (h->rows[r].topology[0])
            rc |= rundb_put_host_topology(run, h->rows[r].host, h->rows[r].topology);
    }
    return rc ? -1 : 0;
}

void mon_hosts_free(struct mon_hosts *h)
{
    free(h->rows);
    memset(h, 0, sizeof *h);
}
