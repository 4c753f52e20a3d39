/* SPDX-License-Identifier: BSD-3-Clause */
/* report_waits.c: `mpilens report --waits`: the wait states found by `mpilens analyze`,
 * shaped like Table 2 of the Scalasca RMA paper: each metric with its seconds and percent
 * of the total time, sub-patterns indented under the metric that includes them.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

const struct report_wait_metric report_wait_tree[] = {
    {"Time", 0, NULL},
    {"MPI", 1, "MPI"},
    {"Point-to-point waits", 2, "Late Sender|Late Receiver"},
    {"Late Sender", 3, "Late Sender"},
    {"Late Receiver", 3, "Late Receiver"},
    {"Collective waits", 2, "Wait at N x N|Late Broadcast|Early Reduce|Early Scan"},
    {"Wait at N x N", 3, "Wait at N x N"},
    {"Late Broadcast", 3, "Late Broadcast"},
    {"Early Reduce", 3, "Early Reduce"},
    {"Early Scan", 3, "Early Scan"},
    {"Synchronization waits", 2, "Wait at Barrier"},
    {"Wait at Barrier", 3, "Wait at Barrier"},
    {"One-sided synchronization", 2, "Wait at Fence|Early Wait|Late Post"},
    {"Wait at Fence", 3, "Wait at Fence"},
    {"Early Fence", 4, "Early Fence"},
    {"Early Wait", 3, "Early Wait"},
    {"Late Complete", 4, "Late Complete"},
    {"Late Post", 3, "Late Post"},
    {"One-sided communication", 2, "Early Transfer"},
    {"Early Transfer", 3, "Early Transfer"},
};
const int report_wait_tree_size = sizeof report_wait_tree / sizeof *report_wait_tree;

static void print_top(const char *pattern, const char *region, int rank, double seconds, void *ctx)
{
    fprintf(ctx, "  %-16s %-16s rank %-4d %12.6f\n", pattern, region, rank, seconds);
}

struct phases {
    FILE *out;
    int first;
};

static void print_phase(const char *phase, double mpi, double waiting, void *ctx)
{
    struct phases *p = ctx;
    if (p->first)
        fprintf(p->out, "\nby user region (MPI_Pcontrol; seconds):\n  %-24s %12s %12s\n", "region",
                "MPI", "waiting");
    p->first = 0;
    fprintf(p->out, "  %-24s %12.6f %12.6f\n", phase, mpi, waiting);
}

int report_print_waits(sqlite3 *db, int rank, FILE *out)
{
    double total = rundb_waits_total(db, rank);
    fprintf(out, "Wait states%s (time summed over ranks)\n", rank >= 0 ? " of one rank" : "");
    if (rank >= 0)
        fprintf(out, "rank %d\n", rank);
    fprintf(out, "%-32s %14s %9s\n", "metric", "seconds", "% time");
    for (int i = 0; i < report_wait_tree_size; i++) {
        const struct report_wait_metric *tree = report_wait_tree;
        double v = tree[i].patterns ? rundb_waits_sum(db, tree[i].patterns, rank) : total;
        char label[64];
        snprintf(label, sizeof label, "%*s%s", 2 * tree[i].depth, "", tree[i].name);
        fprintf(out, "%-32s %14.6f %9.2f\n", label, v, total > 0 ? 100 * v / total : 0);
    }
    fprintf(out, "\nby region and rank (seconds):\n");
    rundb_waits_top(db, rank, 20, print_top, out);
    /* User regions (MPI_Pcontrol): MPI time and waiting time (top-level patterns only). */
    struct phases phases = {out, 1};
    rundb_waits_by_phase(db, rank, print_phase, &phases);
    return 0;
}
