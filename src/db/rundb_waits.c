/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb_waits.c: the readers of the wait-state tables that mpilens analyze writes (waits,
 * wait_times, wait_intervals), declared in rundb_read.h. */
#include <stdio.h>

#include "rundb.h"
#include "rundb_read.h"

double rundb_waits_total(sqlite3 *db, int rank)
{
    return rundb_one_number(db,
                            "SELECT COALESCE(SUM(seconds), 0) FROM wait_times WHERE ?2 < 0 OR "
                            "rank = ?2",
                            NULL, rank);
}

double rundb_waits_sum(sqlite3 *db, const char *patterns, int rank)
{
    char list[256];
    snprintf(list, sizeof list, "|%s|", patterns);
    return rundb_one_number(db,
                            "SELECT COALESCE(SUM(seconds), 0) FROM waits WHERE instr(?1, '|' || "
                            "pattern || '|') > 0 AND (?2 < 0 OR rank = ?2)",
                            list, rank);
}

int rundb_waits_top(sqlite3 *db, int rank, int limit,
                    void (*each)(const char *pattern, const char *region, int rank, double seconds,
                                 void *ctx),
                    void *ctx)
{
    sqlite3_stmt *st =
        rundb_query(db,
                    "SELECT pattern, region, rank, SUM(seconds) AS s FROM waits WHERE "
                    "pattern <> 'MPI' AND (?1 < 0 OR rank = ?1) GROUP BY pattern, region, "
                    "rank ORDER BY s DESC LIMIT ?2",
                    "ii", rank, limit);
    while (st && sqlite3_step(st) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
             sqlite3_column_int(st, 2), sqlite3_column_double(st, 3), ctx);
    return rundb_query_end(st);
}

int rundb_waits_by_phase(sqlite3 *db, int rank,
                         void (*each)(const char *phase, double mpi, double waiting, void *ctx),
                         void *ctx)
{
    sqlite3_stmt *st =
        rundb_query(db,
                    "SELECT phase, SUM(CASE WHEN pattern = 'MPI' THEN seconds ELSE 0 END),"
                    " SUM(CASE WHEN pattern NOT IN ('MPI', 'Early Fence', 'Late Complete')"
                    " THEN seconds ELSE 0 END) FROM waits WHERE phase IS NOT NULL"
                    " AND (?1 < 0 OR rank = ?1) GROUP BY phase ORDER BY 3 DESC",
                    "i", rank);
    while (st && sqlite3_step(st) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(st, 0), sqlite3_column_double(st, 1),
             sqlite3_column_double(st, 2), ctx);
    return rundb_query_end(st);
}

int rundb_phase_useful(sqlite3 *db, void (*each)(const struct rundb_phase_rank *row, void *ctx),
                       void *ctx)
{
    if (!rundb_has_table(db, "phase_times")) /* analyzed before phase_times existed */
        return 0;
    sqlite3_stmt *st =
        rundb_query(db,
                    "SELECT p.phase, p.rank, p.seconds, (SELECT COALESCE(SUM(w.seconds), 0) "
                    "FROM waits w WHERE w.pattern = 'MPI' AND w.phase = p.phase AND w.rank = "
                    "p.rank), p.computing, p.ideal FROM phase_times p ORDER BY p.rowid",
                    "");
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const char *phase = (const char *)sqlite3_column_text(st, 0);
        struct rundb_phase_rank row = {phase ? phase : "",           sqlite3_column_int(st, 1),
                                       sqlite3_column_double(st, 2), sqlite3_column_double(st, 3),
                                       sqlite3_column_double(st, 4), sqlite3_column_double(st, 5)};
        each(&row, ctx);
    }
    return rundb_query_end(st);
}

int rundb_waits_by_pattern(sqlite3 *db, int rank,
                           void (*each)(const char *pattern, double seconds, void *ctx), void *ctx)
{
    sqlite3_stmt *st =
        rundb_query(db,
                    "SELECT pattern, SUM(seconds) FROM waits WHERE pattern NOT IN ('MPI', "
                    "'Early Fence', 'Late Complete') AND (?1 < 0 OR rank = ?1) GROUP BY "
                    "pattern ORDER BY 2 DESC",
                    "i", rank);
    while (st && sqlite3_step(st) == SQLITE_ROW)
        each((const char *)sqlite3_column_text(st, 0), sqlite3_column_double(st, 1), ctx);
    return rundb_query_end(st);
}

int rundb_wait_intervals(sqlite3 *db,
                         void (*each)(int rank, const char *pattern, const char *region,
                                      long long start, long long end, void *ctx),
                         void *ctx)
{
    sqlite3_stmt *st = NULL;
    if (!rundb_has_table(db, "wait_intervals"))
        return 0;
    if (sqlite3_prepare_v2(db, "SELECT rank, pattern, region, start, end FROM wait_intervals", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW)
        each(sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1),
             (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3),
             sqlite3_column_int64(st, 4), ctx);
    sqlite3_finalize(st);
    return 0;
}
