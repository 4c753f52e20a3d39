/* SPDX-License-Identifier: BSD-3-Clause */
/* mon_prof.c: write this rank's current counters as Open MPI's monitoring does when its
 * flush variable is stopped (PREFIX.RANK.prof), for programs that drive the monitoring
 * through MPI_T and read the files (Open MPI's aggregate_profile.pl, profile2mat.pl).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mon.h"

static void peer_lines(FILE *f, const char *tag, int kind, int histogram)
{
    uint64_t *c = calloc(2 * (size_t)mon_nprocs, sizeof *c), *b = c + mon_nprocs;
    mon_read(kind, c, b, mon_nprocs);
    for (int p = 0; p < mon_nprocs; p++) {
        if (!c[p])
            continue;
        fprintf(f, "%s\t%d\t%d\t%llu bytes\t%llu msgs sent", tag, mon_rank, p,
                (unsigned long long)b[p], (unsigned long long)c[p]);
        if (histogram) {
            uint64_t h[MON_BINS];
            mon_read_histogram(p, h);
            for (int i = 0; i < MON_BINS; i++)
                fprintf(f, "%c%llu", i ? ',' : '\t', (unsigned long long)h[i]);
        }
        fputc('\n', f);
    }
    free(c);
}

int mon_write_prof(const char *prefix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%d.prof", prefix, mon_rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    mon_fold_world();
    fputs("# POINT TO POINT\n", f);
    peer_lines(f, "E", MON_P2P, 1);
    fputs("# OSC\n", f);
    peer_lines(f, "S", MON_RMA_SENT, 0);
    peer_lines(f, "R", MON_RMA_RECV, 0);
    fputs("# COLLECTIVES\n", f);
    peer_lines(f, "C", MON_COLL, 0);
    static const char *const kinds[] = {"O2A", "A2O", "A2A"};
    for (struct lens_comm *c = lens_comm_all(); c; c = c->next) {
        uint64_t *v = atomic_load(&c->payload);
        if (!v || c->letter == 'M')
            continue;
        fprintf(f, "D\t%c%d (created #%d here)\tprocs: ", c->letter, c->root, c->counter);
        for (int m = 0; m < c->size; m++)
            fprintf(f, "%s%d", m ? "," : "", c->members[m]);
        fputc('\n', f);
        for (int k = 0; k < 3; k++)
            fprintf(f, "%s\t%d\t%llu bytes\t%llu msgs sent\n", kinds[k], mon_rank,
                    (unsigned long long)v[2 * k + 1], (unsigned long long)v[2 * k]);
    }
    return fclose(f);
}
