/* report_sites.c: `mpilens report --callsites`: the profile by call site, as mpiP shows it:
 * the sites that spend the most MPI time (aggregate time, share of all MPI time, calls),
 * then each site's statistics (calls, longest, mean and shortest call, bytes), summed over
 * ranks or for one rank (--rank). A site is the line of the application that made the call
 * (function, file and line from its debug information; `?` without -g): the copies of a
 * helper the compiler inlined into several callers are one site, as in the source.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* FILE's last component (a path is long; the line number says the rest). */
static const char *base_name(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? slash + 1 : file ? file : "";
}

static const char site_sql[] =
    "SELECT MIN(c.id), c.function, c.file, c.line, o.operation, SUM(p.calls), SUM(p.time),"
    " MAX(p.max_time), MIN(p.min_time), SUM(p.volume), c.object"
    " FROM callsite_profile p JOIN callsites c ON c.id = p.callsite_id"
    " JOIN operations o ON o.id = p.operation_id WHERE ?1 < 0 OR p.rank = ?1"
    " GROUP BY c.object, c.function, c.file, c.line, o.id ORDER BY SUM(p.time) DESC, 1"
    " LIMIT ?2";

int report_print_callsites(sqlite3 *db, int rank, int top, int csv, FILE *out)
{
    sqlite3_stmt *st;
    double mpi = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT COALESCE(SUM(time), 0) FROM callsite_profile WHERE ?1 < 0 OR "
                           "rank = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return 2;
    sqlite3_bind_int(st, 1, rank);
    if (sqlite3_step(st) == SQLITE_ROW)
        mpi = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db, site_sql, -1, &st, NULL) != SQLITE_OK)
        return 2;
    sqlite3_bind_int(st, 1, rank);
    sqlite3_bind_int(st, 2, top > 0 ? top : 20);
    if (csv)
        fprintf(out, "site,function,file,line,operation,calls,time_s,percent_mpi,max_call_s,"
                     "mean_call_s,min_call_s,bytes,object\n");
    else
        fprintf(out,
                "Call sites%s: the %d that spend the most MPI time\n"
                "%4s %-16s %-19s %-12s %8s %10s %5s\n",
                rank >= 0 ? " of one rank" : " (summed over ranks)", top > 0 ? top : 20, "SITE",
                "FUNCTION", "FILE:LINE", "OPERATION", "CALLS", "TIME s", "% MPI");
    /* the statistics of each site, printed as a second table after the first */
    char *stats = NULL;
    size_t stats_len = 0;
    FILE *second = csv ? NULL : open_memstream(&stats, &stats_len);
    if (second)
        fprintf(second, "\nCall site statistics (one call)\n%4s %8s %10s %10s %10s %10s\n", "SITE",
                "CALLS", "MAX s", "MEAN s", "MIN s", "BYTES");
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *fn = (const char *)sqlite3_column_text(st, 1);
        const char *file = (const char *)sqlite3_column_text(st, 2);
        const char *op = (const char *)sqlite3_column_text(st, 4);
        long long calls = sqlite3_column_int64(st, 5), bytes = sqlite3_column_int64(st, 9);
        double time = sqlite3_column_double(st, 6), max = sqlite3_column_double(st, 7);
        double min = sqlite3_column_double(st, 8), mean = calls ? time / calls : 0;
        double share = mpi > 0 ? 100 * time / mpi : 0;
        int id = sqlite3_column_int(st, 0), line = sqlite3_column_int(st, 3);
        if (csv) {
            fprintf(out, "%d,%s,%s,%d,%s,%lld,%.9f,%.2f,%.9f,%.9f,%.9f,%lld,%s\n", id, fn ? fn : "",
                    file ? file : "", line, op ? op : "", calls, time, share, max, mean, min, bytes,
                    (const char *)sqlite3_column_text(st, 10));
        } else {
            char where[64], volume[32];
            snprintf(where, sizeof where, "%s:%d", file && *file ? base_name(file) : "?", line);
            report_bytes(bytes, volume, sizeof volume);
            fprintf(out, "%4d %-16.16s %-19.19s %-12.12s %8lld %10.6f %5.1f\n", id, fn ? fn : "?",
                    where, op ? op : "?", calls, time, share);
            if (second)
                fprintf(second, "%4d %8lld %10.6f %10.6f %10.6f %10s\n", id, calls, max, mean, min,
                        volume);
        }
        rows++;
    }
    sqlite3_finalize(st);
    if (second) {
        fclose(second);
        if (rows)
            fputs(stats, out);
        free(stats);
    }
    if (!csv && rows == 0)
        fprintf(out, "(no call site recorded)\n");
    else if (!csv)
        fprintf(out, "\nTIME: summed over ranks; %% MPI: of all MPI time recorded at call "
                     "sites;\nMAX, MEAN, MIN: one call; BYTES: sent, summed over ranks.\n");
    return 0;
}
