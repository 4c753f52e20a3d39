/* dynb_bcast7.c: rank 0 sends one 64 KiB handle to the 7 other ranks (posted before it is
 * ready, so dynbcast gathers them); prints rank 0's transfer count.
 * Usage: dynb_bcast7 [tree|p2p|default]: always a tree, point-to-point, or the library's
 * choice (a tree: 7 x 64 KiB is above the threshold). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynbcast.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "tree";
    struct dynb_options opt = {
        strcmp(mode, "p2p") == 0 ? DYNB_P2P : DYNB_BINOMIAL, 0, 0, strcmp(mode, "tree") == 0, 0, 0};
    dynb_t *d;
    dynb_create(MPI_COMM_WORLD, &opt, &d);
    static char data[65536];
    if (rank == 0) {
        memset(data, 7, sizeof data);
        dynb_declare(d, 1, 0, data, sizeof data);
        for (int r = 1; r < size; r++)
            dynb_send(d, 1, r);
        dynb_ready(d, 1);
    } else {
        dynb_declare(d, 1, 0, data, sizeof data);
        dynb_recv(d, 1);
        dynb_wait(d, 1);
    }
    struct dynb_stats s;
    dynb_get_stats(d, &s);
    MPI_Barrier(MPI_COMM_WORLD);
    dynb_destroy(d);
    int ok = data[65535] == 7, all;
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dynb_bcast7 %s: rank 0 sent %llu messages\n", all ? "ok" : "CORRUPT",
               (unsigned long long)s.messages_sent);
    MPI_Finalize();
    return 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
