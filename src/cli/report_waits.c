/* report_waits.c: `mpilens report --waits`: the wait states found by `mpilens analyze`,
 * shaped like Table 2 of the Scalasca RMA paper: each metric with its seconds and percent
 * of the total time, sub-patterns indented under the metric that includes them.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "rundb.h"

struct metric {
    const char *name;
    int depth;
    const char *patterns; /* the patterns it sums, '|'-separated, or NULL for the total */
};

static const struct metric tree[] = {
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

static double sum(sqlite3 *db, const char *patterns, int rank)
{
    char list[256];
    snprintf(list, sizeof list, "|%s|", patterns);
    sqlite3_stmt *st;
    double v = 0;
    sqlite3_prepare_v2(db,
                       "SELECT COALESCE(SUM(seconds), 0) FROM waits WHERE instr(?1, '|' || pattern "
                       "|| '|') > 0 AND (?2 < 0 OR rank = ?2)",
                       -1, &st, NULL);
    sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, rank);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

int report_print_waits(sqlite3 *db, int rank, FILE *out)
{
    sqlite3_stmt *st;
    double total = 0;
    sqlite3_prepare_v2(db,
                       "SELECT COALESCE(SUM(seconds), 0) FROM wait_times WHERE ?1 < 0 OR rank = ?1",
                       -1, &st, NULL);
    sqlite3_bind_int(st, 1, rank);
    if (sqlite3_step(st) == SQLITE_ROW)
        total = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    fprintf(out, "Wait states%s (time summed over ranks)\n", rank >= 0 ? " of one rank" : "");
    if (rank >= 0)
        fprintf(out, "rank %d\n", rank);
    fprintf(out, "%-32s %14s %9s\n", "metric", "seconds", "% time");
    for (size_t i = 0; i < sizeof tree / sizeof *tree; i++) {
        double v = tree[i].patterns ? sum(db, tree[i].patterns, rank) : total;
        char label[64];
        snprintf(label, sizeof label, "%*s%s", 2 * tree[i].depth, "", tree[i].name);
        fprintf(out, "%-32s %14.6f %9.2f\n", label, v, total > 0 ? 100 * v / total : 0);
    }
    fprintf(out, "\nby region and rank (seconds):\n");
    sqlite3_prepare_v2(db,
                       "SELECT pattern, region, rank, SUM(seconds) AS s FROM waits WHERE pattern "
                       "<> 'MPI' AND (?1 < 0 OR rank = ?1) GROUP BY pattern, region, rank "
                       "ORDER BY s DESC LIMIT 20",
                       -1, &st, NULL);
    sqlite3_bind_int(st, 1, rank);
    while (sqlite3_step(st) == SQLITE_ROW)
        fprintf(out, "  %-16s %-16s rank %-4d %12.6f\n", (const char *)sqlite3_column_text(st, 0),
                (const char *)sqlite3_column_text(st, 1), sqlite3_column_int(st, 2),
                sqlite3_column_double(st, 3));
    sqlite3_finalize(st);
    /* User regions (MPI_Pcontrol): MPI time and waiting time (top-level patterns only). */
    sqlite3_prepare_v2(db,
                       "SELECT phase, SUM(CASE WHEN pattern = 'MPI' THEN seconds ELSE 0 END),"
                       " SUM(CASE WHEN pattern NOT IN ('MPI', 'Early Fence', 'Late Complete')"
                       " THEN seconds ELSE 0 END) FROM waits WHERE phase IS NOT NULL"
                       " AND (?1 < 0 OR rank = ?1) GROUP BY phase ORDER BY 3 DESC",
                       -1, &st, NULL);
    sqlite3_bind_int(st, 1, rank);
    for (int first = 1; st && sqlite3_step(st) == SQLITE_ROW; first = 0) {
        if (first)
            fprintf(out, "\nby user region (MPI_Pcontrol; seconds):\n  %-24s %12s %12s\n", "region",
                    "MPI", "waiting");
        fprintf(out, "  %-24s %12.6f %12.6f\n", (const char *)sqlite3_column_text(st, 0),
                sqlite3_column_double(st, 1), sqlite3_column_double(st, 2));
    }
    sqlite3_finalize(st);
    return 0;
}
