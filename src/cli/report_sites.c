/* SPDX-License-Identifier: BSD-3-Clause */
/* report_sites.c: `mpilens report --callsites`: the profile by call site, as mpiP shows it:
 * the sites that spend the most MPI time (aggregate time, share of all MPI time, calls),
 * then each site's statistics (calls, longest, mean and shortest call, bytes), summed over
 * ranks or for one rank (--rank). A site is the line of the application that made the call
 * (function, file and line from its debug information; `?` without -g): the copies of a
 * helper the compiler inlined into several callers are one site, as in the source.
 * MPI_Init and MPI_Finalize are left out of the ranking and its shares (the library's
 * start-up and end, outside the run) and said on lines of their own after the tables.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *report_file_name(const char *file)
{
    if (!file || !*file)
        return "?";
    const char *slash = strrchr(file, '/');
    return slash ? slash + 1 : file;
}

struct sites {
    FILE *out, *second;
    int csv, rows;
    double mpi; /* the program's MPI time at call sites (the shares' whole); 0: no share */
};

static void print_site(const struct rundb_callsite *c, void *ctx)
{
    struct sites *t = ctx;
    const char *fn = c->function, *file = c->file, *op = c->operation;
    long long calls = c->calls, bytes = c->bytes;
    double time = c->time, max = c->max_call, min = c->min_call, mean = calls ? time / calls : 0;
    double share = t->mpi > 0 ? 100 * time / t->mpi : 0;
    int id = c->id, line = c->line;
    if (t->csv) {
        fprintf(t->out, "%d,%s,%s,%d,%s,%lld,%.9f,%.2f,%.9f,%.9f,%.9f,%lld,%s\n", id, fn ? fn : "",
                file ? file : "", line, op ? op : "", calls, time, share, max, mean, min, bytes,
                c->object);
    } else {
        char where[64], volume[32];
        snprintf(where, sizeof where, "%s:%d", report_file_name(file), line);
        report_bytes(bytes, volume, sizeof volume);
        fprintf(t->out, "%4d %-16.16s %-19.19s %-12.12s %8lld %10.6f %5.1f\n", id, fn ? fn : "?",
                where, op ? op : "?", calls, time, share);
        if (t->second)
            fprintf(t->second, "%4d %8lld %10.6f %10.6f %10.6f %10s\n", id, calls, max, mean, min,
                    volume);
    }
    t->rows++;
}

/* MPI_Init and MPI_Finalize: a line each after the tables, never ranked among them. */
static void startup_site(const struct rundb_callsite *c, void *ctx)
{
    char where[64];
    snprintf(where, sizeof where, "%s:%d", report_file_name(c->file), c->line);
    fprintf(ctx, "MPI_%-9s %-19.19s %10.6f s: outside the run, not ranked\n",
            c->operation ? c->operation : "?", where, c->time);
}

int report_print_callsites(sqlite3 *db, int rank, int top, int csv, FILE *out)
{
    struct sites t = {out, NULL, csv, 0, rundb_callsites_time(db, rank, RUNDB_PROGRAM_CALLS)};
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
    t.second = csv ? NULL : open_memstream(&stats, &stats_len);
    if (t.second)
        fprintf(t.second, "\nCall site statistics (one call)\n%4s %8s %10s %10s %10s %10s\n",
                "SITE", "CALLS", "MAX s", "MEAN s", "MIN s", "BYTES");
    int rc = rundb_callsites_top(db, rank, top > 0 ? top : 20, RUNDB_PROGRAM_CALLS, print_site, &t);
    int rows = t.rows;
    if (t.second) {
        fclose(t.second);
        if (rows)
            fputs(stats, out);
        free(stats);
    }
    if (rc != 0)
        return 2;
    if (!csv && rows == 0)
        fprintf(out, "(no call site recorded)\n");
    else if (!csv)
        fprintf(out, "\nTIME: summed over ranks; %% MPI: of all MPI time recorded at call "
                     "sites,\nMPI_Init and MPI_Finalize apart (below); MAX, MEAN, MIN: one call; "
                     "BYTES: sent,\n"
                     "summed over ranks.\n");
    /* MPI_Init and MPI_Finalize: after the ranking, with no share of it (CSV: rows of their
     * own, percent_mpi 0) */
    struct sites apart = {out, NULL, 1, 0, 0};
    if (csv)
        rundb_callsites_top(db, rank, 4, RUNDB_STARTUP_CALLS, print_site, &apart);
    else
        rundb_callsites_top(db, rank, 4, RUNDB_STARTUP_CALLS, startup_site, out);
    return 0;
}
