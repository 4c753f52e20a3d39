/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_hosts.h: each rank's host and each host's topology, gathered at MPI_Finalize
 * (mon_hosts.c). */
#ifndef MON_HOSTS_H
#define MON_HOSTS_H

#include <mpi.h>

#include "rundb.h"

struct mon_host_row {
    char host[64];
    char topology[448]; /* hwloc synthetic, from the host's first rank; "" from the others */
};

struct mon_hosts {
    struct mon_host_row *rows; /* per rank, on rank 0 */
    int n;
};

/* Collective over COMM; rank 0 gets every rank's row. 0, or -1 (out of memory at rank 0:
 * no rows). */
int mon_hosts_gather(MPI_Comm comm, struct mon_hosts *h);
int mon_hosts_write(struct rundb *run, const struct mon_hosts *h);
void mon_hosts_free(struct mon_hosts *h);

#endif
