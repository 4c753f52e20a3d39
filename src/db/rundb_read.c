/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb_read.c: the readers' side of the run database (rundb_read.h). */
#include "rundb_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundb.h"

/* ---- the handle ---- */

const char *rundb_errmsg(sqlite3 *db)
{
    const char *detail = rundb_detail_error();
    return detail ? detail : sqlite3_errmsg(db);
}

/* ---- the profile ---- */

int rundb_rank_times(sqlite3 *db, int rank,
                     void (*each)(int rank, double exec, double mpi, double startup, void *ctx),
                     void *ctx)
{
    /* a database of schema 1 has no startup_time: summed from its rows */
    int column = rundb_one_int(db,
                               "SELECT COUNT(*) FROM pragma_table_info('ranks') WHERE name = "
                               "'startup_time'",
                               0);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT r.rank, r.net_time, r.mpi_time, %s FROM ranks r WHERE (?1 IS NULL OR "
             "r.rank = ?1) ORDER BY r.rank",
             column ? "COALESCE(r.startup_time, 0)"
                    : "COALESCE((SELECT SUM(p.time) FROM profile p JOIN operations o ON o.id = "
                      "p.operation_id WHERE p.rank = r.rank AND o.operation IN " RUNDB_STARTUP_OPS
                      "), 0)");
    sqlite3_stmt *st = rundb_query(db, sql, "");
    if (!st)
        return -1;
    if (rank >= 0)
        sqlite3_bind_int(st, 1, rank);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        each(sqlite3_column_int(st, 0), sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
             sqlite3_column_double(st, 3), ctx);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* A cell from every rank's rows, or from the rows reduced over ranks (profile_summary: one
 * row per cell). Same columns either way; the ORDER BY clause names them. */
static const char profile_sql[] =
    "SELECT c.name, c.size, c.members, o.operation, o.kind, p.bucket, b.min, b.max,"
    " SUM(p.calls) AS n_calls, MAX(p.time) AS t_max, AVG(p.time), SUM(p.volume) AS n_volume,"
    " SUM(p.time), %s AS comm_volume, MAX(p.max_time)"
    " FROM profile p JOIN communicators c ON c.id = p.comm_id"
    " JOIN operations o ON o.id = p.operation_id JOIN buckets b ON b.bucket = p.bucket"
    " WHERE (?1 IS NULL OR c.name = ?1) AND (?2 IS NULL OR o.operation = ?2)"
    " AND (?3 IS NULL OR p.rank = ?3) AND (?4 IS NULL OR o.kind = ?4)"
    " AND (?5 IS NULL OR p.bucket = ?5)"
    " AND (?7 IS NULL OR o.operation NOT IN " RUNDB_STARTUP_OPS ")"
    " GROUP BY c.id, o.id, p.bucket ";
static const char summary_sql[] =
    "SELECT c.name, c.size, c.members, o.operation, o.kind, p.bucket, b.min, b.max,"
    " SUM(p.calls) AS n_calls, MAX(p.time_max) AS t_max, SUM(p.time) / SUM(p.ranks),"
    " SUM(p.volume) AS n_volume, SUM(p.time),"
    " (SELECT SUM(q.volume) FROM profile_summary q WHERE q.comm_id = c.id) AS comm_volume,"
    " MAX(p.max_time)"
    " FROM profile_summary p JOIN communicators c ON c.id = p.comm_id"
    " JOIN operations o ON o.id = p.operation_id JOIN buckets b ON b.bucket = p.bucket"
    " WHERE (?1 IS NULL OR c.name = ?1) AND (?2 IS NULL OR o.operation = ?2)"
    " AND ?3 IS NULL AND (?4 IS NULL OR o.kind = ?4)"
    " AND (?5 IS NULL OR p.bucket = ?5)"
    " AND (?7 IS NULL OR o.operation NOT IN " RUNDB_STARTUP_OPS ")"
    " GROUP BY c.id, o.id, p.bucket ";

/* The ORDER BY clause, picked from a fixed list, never built from user text. */
static const char *order_clause(const struct rundb_profile_filter *f)
{
    const char *sort = f->sort ? f->sort : "time";
    const char *key = strcmp(sort, "calls") == 0    ? "n_calls"
                      : strcmp(sort, "volume") == 0 ? "n_volume"
                                                    : "t_max";
    static char clause[128];
    if (f->top > 0)
        snprintf(clause, sizeof clause, "ORDER BY %s DESC, c.name, o.id, p.bucket LIMIT ?6", key);
    else
        snprintf(clause, sizeof clause,
                 "ORDER BY comm_volume DESC, c.name, %s DESC, o.id, p.bucket", key);
    return clause;
}

static void copy_text(char *dst, size_t len, const unsigned char *src)
{
    snprintf(dst, len, "%s", src ? (const char *)src : "");
}

static int profile_cells(sqlite3 *db, const struct rundb_profile_filter *f,
                         struct rundb_profile_cell **cells, int *count);

int rundb_profile_cells(sqlite3 *db, const struct rundb_profile_filter *f,
                        struct rundb_profile_cell **cells, int *count)
{
    *cells = NULL;
    *count = 0;
    sqlite3 *detail;
    if (rundb_detail_use(db, f->rank, &detail) != 0)
        return -1;
    int rc = profile_cells(detail, f, cells, count);
    rundb_detail_done(db, detail);
    return rc;
}

static int profile_cells(sqlite3 *db, const struct rundb_profile_filter *f,
                         struct rundb_profile_cell **cells, int *count)
{
    char sql[2048], select[1600];
    /* communicators in the order of their volume in the whole run (a shard: its run's) */
    snprintf(select, sizeof select, profile_sql,
             rundb_any_row(db, "SELECT 1 FROM sqlite_temp_master WHERE name = ?", "run_volumes")
                 ? "(SELECT v.volume FROM run_volumes v WHERE v.comm_id = c.id)"
                 : "(SELECT SUM(q.volume) FROM profile q WHERE q.comm_id = c.id)");
    snprintf(sql, sizeof sql, "%s%s",
             f->rank < 0 && rundb_profile_summarized(db) ? summary_sql : select, order_clause(f));
    sqlite3_stmt *st = rundb_query(db, sql, "");
    if (!st)
        return -1;
    if (f->comm)
        sqlite3_bind_text(st, 1, f->comm, -1, SQLITE_STATIC);
    if (f->op)
        sqlite3_bind_text(st, 2, f->op, -1, SQLITE_STATIC);
    if (f->rank >= 0)
        sqlite3_bind_int(st, 3, f->rank);
    if (f->kind)
        sqlite3_bind_text(st, 4, f->kind, -1, SQLITE_STATIC);
    if (f->bucket >= 0)
        sqlite3_bind_int(st, 5, f->bucket);
    if (f->top > 0)
        sqlite3_bind_int(st, 6, f->top);
    if (f->top > 0 && !f->op) /* a ranking: the program's calls */
        sqlite3_bind_int(st, 7, 1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct rundb_profile_cell *grown = realloc(*cells, (*count + 1) * sizeof **cells);
        if (!grown) {
            rc = SQLITE_NOMEM;
            break;
        }
        *cells = grown;
        struct rundb_profile_cell *r = &grown[(*count)++];
        memset(r, 0, sizeof *r);
        copy_text(r->comm, sizeof r->comm, sqlite3_column_text(st, 0));
        r->comm_size = sqlite3_column_int(st, 1);
        copy_text(r->members, sizeof r->members, sqlite3_column_text(st, 2));
        copy_text(r->op, sizeof r->op, sqlite3_column_text(st, 3));
        copy_text(r->kind, sizeof r->kind, sqlite3_column_text(st, 4));
        r->bucket = sqlite3_column_int(st, 5);
        r->bucket_min = sqlite3_column_int64(st, 6);
        r->bucket_max = sqlite3_column_int64(st, 7);
        r->calls = sqlite3_column_int64(st, 8);
        r->max_time = sqlite3_column_double(st, 9);
        r->avg_time = sqlite3_column_double(st, 10);
        r->volume = sqlite3_column_int64(st, 11);
        r->total_time = sqlite3_column_double(st, 12);
        r->longest = sqlite3_column_double(st, 14);
        if (f->rank < 0) {
            if (strcmp(r->op, "Sendrecv") == 0)
                r->calls /= 2;
            else if (strcmp(r->kind, "coll") == 0 && r->comm_size > 0)
                r->calls /= r->comm_size;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int rundb_profile_totals(sqlite3 *db, void (*each)(const struct rundb_profile_total *t, void *ctx),
                         void *ctx)
{
    sqlite3_stmt *st = NULL;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT c.name, c.creator, o.operation, o.kind, c.size, p.bucket, b.min,"
             " b.max, SUM(p.calls), SUM(p.volume), SUM(p.time), MAX(p.max_time)"
             " FROM %s p JOIN communicators c ON c.id = p.comm_id"
             " JOIN operations o ON o.id = p.operation_id"
             " JOIN buckets b ON b.bucket = p.bucket"
             " GROUP BY p.comm_id, p.operation_id, p.bucket",
             rundb_profile_summarized(db) ? "profile_summary" : "profile");
    st = rundb_query(db, sql, "");
    if (!st)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct rundb_profile_total t = {
            .comm = (const char *)sqlite3_column_text(st, 0),
            .creator = (const char *)sqlite3_column_text(st, 1),
            .op = (const char *)sqlite3_column_text(st, 2),
            .kind = (const char *)sqlite3_column_text(st, 3),
            .comm_size = sqlite3_column_int(st, 4),
            .bucket = sqlite3_column_int(st, 5),
            .bucket_min = sqlite3_column_int64(st, 6),
            .bucket_max = sqlite3_column_int64(st, 7),
            .calls = sqlite3_column_int64(st, 8),
            .volume = sqlite3_column_int64(st, 9),
            .time = sqlite3_column_double(st, 10),
            .max_time = sqlite3_column_double(st, 11),
        };
        if (!t.comm)
            t.comm = "?";
        if (!t.creator)
            t.creator = "?";
        if (!t.op)
            t.op = "?";
        if (!t.kind)
            t.kind = "";
        each(&t, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int rundb_startup_op(const char *op)
{
    return strcmp(op, "Init") == 0 || strcmp(op, "Init_thread") == 0 || strcmp(op, "Finalize") == 0;
}

/* ---- the profile by call site ---- */

/* The condition on operation ids that picks WHICH calls (COLUMN: the operation id's). */
static const char *calls_condition(enum rundb_calls which, const char *column, char *out, size_t n)
{
    if (which == RUNDB_ALL_CALLS)
        return "1";
    snprintf(out, n, "%s %s (SELECT id FROM operations WHERE operation IN " RUNDB_STARTUP_OPS ")",
             column, which == RUNDB_PROGRAM_CALLS ? "NOT IN" : "IN");
    return out;
}

/* Every rank's call site rows, or the rows reduced over ranks (no rank column). */
static const char *sites_table(sqlite3 *db, int rank)
{
    return rank < 0 && !rundb_table_has_rows(db, "callsite_profile") &&
                   rundb_table_has_rows(db, "callsite_summary")
               ? "callsite_summary"
               : "callsite_profile";
}

double rundb_callsites_time(sqlite3 *db, int rank, enum rundb_calls which)
{
    sqlite3 *detail;
    if (rundb_detail_use(db, rank, &detail) != 0)
        return 0;
    char sql[512], cond[256];
    snprintf(sql, sizeof sql, "SELECT COALESCE(SUM(time), 0) FROM %s WHERE %s%s",
             sites_table(detail, rank), calls_condition(which, "operation_id", cond, sizeof cond),
             rank < 0 ? "" : " AND rank = ?2");
    double seconds = rundb_one_number(detail, sql, NULL, rank);
    rundb_detail_done(db, detail);
    return seconds;
}

int rundb_callsites_top(sqlite3 *db, int rank, int limit, enum rundb_calls which,
                        void (*each)(const struct rundb_callsite *site, void *ctx), void *ctx)
{
    sqlite3 *detail;
    if (rundb_detail_use(db, rank, &detail) != 0)
        return -1;
    char sql[1280], cond[256];
    snprintf(sql, sizeof sql,
             "SELECT MIN(c.id), c.function, c.file, c.line, o.operation, SUM(p.calls), SUM(p.time),"
             " MAX(p.max_time), MIN(p.min_time), SUM(p.volume), c.object"
             " FROM %s p JOIN callsites c ON c.id = p.callsite_id"
             " JOIN operations o ON o.id = p.operation_id WHERE %s%s"
             " GROUP BY c.object, c.function, c.file, c.line, o.id ORDER BY SUM(p.time) DESC, 1"
             " LIMIT ?2",
             sites_table(detail, rank), calls_condition(which, "p.operation_id", cond, sizeof cond),
             rank < 0 ? "" : " AND p.rank = ?1");
    sqlite3_stmt *st = rundb_query(detail, sql, "ii", rank, limit);
    if (!st) {
        rundb_detail_done(db, detail);
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct rundb_callsite site = {.id = sqlite3_column_int(st, 0),
                                      .function = (const char *)sqlite3_column_text(st, 1),
                                      .file = (const char *)sqlite3_column_text(st, 2),
                                      .line = sqlite3_column_int(st, 3),
                                      .operation = (const char *)sqlite3_column_text(st, 4),
                                      .calls = sqlite3_column_int64(st, 5),
                                      .time = sqlite3_column_double(st, 6),
                                      .max_call = sqlite3_column_double(st, 7),
                                      .min_call = sqlite3_column_double(st, 8),
                                      .bytes = sqlite3_column_int64(st, 9),
                                      .object = (const char *)sqlite3_column_text(st, 10)};
        each(&site, ctx);
    }
    sqlite3_finalize(st);
    rundb_detail_done(db, detail);
    return 0;
}

/* ---- the monitor's matrix ---- */

int rundb_matrix_phase_exists(sqlite3 *db, const char *phase)
{
    return rundb_any_row(db, "SELECT 1 FROM monitor_phases WHERE name = ?", phase);
}

/* The matrix's cells: the monitor_cells view (uniform collectives spread over peers), or
 * the monitor_matrix table of a database written before the view existed. */
static const char *cells_of(sqlite3 *db)
{
    return rundb_one_int(db,
                         "SELECT COUNT(*) FROM sqlite_master WHERE type = 'view' AND name = "
                         "'monitor_cells'",
                         0) > 0
               ? "monitor_cells"
               : "monitor_matrix";
}

static const char hosts_in_order[] =
    "SELECT host FROM monitor_hosts GROUP BY host ORDER BY MIN(rank)";

int rundb_run_hosts(sqlite3 *db, char (*hosts)[64], int max, char *topology, size_t len, int *same)
{
    int n = 0;
    topology[0] = '\0';
    *same = 1;
    if (rundb_one_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'monitor_hosts'", 0) ==
        0)
        return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, hosts_in_order, -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < max) {
        const unsigned char *h = sqlite3_column_text(st, 0);
        snprintf(hosts[n++], 64, "%s", h ? (const char *)h : "");
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db,
                           "SELECT t.topology, (SELECT COUNT(DISTINCT topology) FROM "
                           "host_topologies) FROM host_topologies t JOIN monitor_hosts h ON "
                           "h.host = t.host ORDER BY h.rank LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(topology, len, "%s", t ? (const char *)t : "");
        *same = sqlite3_column_int(st, 1) <= 1;
    }
    sqlite3_finalize(st);
    return n;
}

/* " (ranks 0-1, 4)": the sorted RANKS (N) as ranges, appended to OUT. */
static void append_ranks(char *out, size_t len, const int *ranks, int n)
{
    size_t at = strlen(out);
    snprintf(out + at, len - at, " (rank%s ", n > 1 ? "s" : "");
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        at = strlen(out);
        if (j > i)
            snprintf(out + at, len - at, "%s%d-%d", i ? ", " : "", ranks[i], ranks[j]);
        else
            snprintf(out + at, len - at, "%s%d", i ? ", " : "", ranks[i]);
        i = j + 1;
    }
    at = strlen(out);
    snprintf(out + at, len - at, ")");
}

/* The table that says where each rank ran: the profile's ranks, else the monitor's
 * monitor_hosts; NULL when the run recorded neither. */
static const char *hosts_table(sqlite3 *db)
{
    return rundb_one_int(db, "SELECT COUNT(*) FROM ranks WHERE host IS NOT NULL", 0) > 0 ? "ranks"
           : rundb_one_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'monitor_hosts'",
                           0) > 0
               ? "monitor_hosts"
               : NULL;
}

int rundb_host_counts(sqlite3 *db, void (*each)(const char *host, int ranks, void *ctx), void *ctx)
{
    const char *table = hosts_table(db);
    if (!table)
        return 0;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT host, COUNT(*) FROM %s GROUP BY host ORDER BY MIN(rank)",
             table);
    sqlite3_stmt *st = rundb_query(db, sql, "");
    int hosts = 0;
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *h = sqlite3_column_text(st, 0);
        each(h ? (const char *)h : "?", sqlite3_column_int(st, 1), ctx);
        hosts++;
    }
    return rundb_query_end(st) != 0 ? -1 : hosts;
}

int rundb_host_summary(sqlite3 *db, char *out, size_t len)
{
    out[0] = '\0';
    const char *table = hosts_table(db);
    if (!table)
        return 0;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT t.host, t.rank FROM %s t JOIN (SELECT host, MIN(rank) AS first FROM %s "
             "GROUP BY host) f ON f.host IS t.host ORDER BY f.first, t.rank",
             table, table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    int hosts = 0, n = 0, cap = 0, *ranks = NULL;
    char current[256] = "";
    for (int more = sqlite3_step(st) == SQLITE_ROW;; more = sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *h = more ? sqlite3_column_text(st, 0) : NULL;
        const char *host = h ? (const char *)h : "?";
        if (n > 0 && (!more || strcmp(host, current) != 0)) { /* the previous host, done */
            size_t at = strlen(out);
            snprintf(out + at, len - at, "%s%s", hosts ? ", " : "", current);
            append_ranks(out, len, ranks, n);
            hosts++, n = 0;
        }
        if (!more)
            break;
        snprintf(current, sizeof current, "%s", host);
        if (n == cap) {
            int *grown = realloc(ranks, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *ranks);
            if (!grown)
                break;
            ranks = grown;
        }
        ranks[n++] = sqlite3_column_int(st, 1);
    }
    free(ranks);
    sqlite3_finalize(st);
    return hosts;
}

int rundb_comm_useful(sqlite3 *db,
                      void (*each)(const char *comm, int size, double mean, double max, void *ctx),
                      void *ctx)
{
    sqlite3_stmt *st = rundb_query(
        db,
        "SELECT c.name, COUNT(*), AVG(MAX(r.net_time - r.mpi_time, 0)), "
        "MAX(MAX(r.net_time - r.mpi_time, 0)) FROM communicators c JOIN communicator_members m "
        "ON m.comm_id = c.id JOIN ranks r ON r.rank = m.rank WHERE c.size > 1 AND c.size < "
        "(SELECT COUNT(*) FROM ranks) GROUP BY c.id ORDER BY c.id",
        "");
    if (!st)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 0);
        each(name ? (const char *)name : "?", sqlite3_column_int(st, 1),
             sqlite3_column_double(st, 2), sqlite3_column_double(st, 3), ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int rundb_rank_hosts(sqlite3 *db, int *host_of, int n)
{
    for (int r = 0; r < n; r++)
        host_of[r] = -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT m.rank, o.i FROM monitor_hosts m JOIN (SELECT host, "
                           "ROW_NUMBER() OVER (ORDER BY MIN(rank)) - 1 AS i FROM monitor_hosts "
                           "GROUP BY host) o ON o.host = m.host",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int r = sqlite3_column_int(st, 0);
        if (r >= 0 && r < n)
            host_of[r] = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    return 0;
}

int rundb_matrix_has_cells(sqlite3 *db)
{
    return rundb_table_has_rows(db, cells_of(db));
}

int rundb_matrix_ranks(sqlite3 *db)
{
    /* SQLite's scalar MAX is NULL when one argument is: both sides default to 0 */
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT MAX(COALESCE((SELECT CAST(value AS INTEGER) FROM metadata"
             " WHERE key = 'Processes'), 0), COALESCE((SELECT MAX(MAX(src),"
             " MAX(dst)) + 1 FROM %s), 0))",
             cells_of(db));
    return rundb_one_int(db, sql, 0);
}

int rundb_matrix_kinds(sqlite3 *db, char *out, size_t len)
{
    sqlite3_stmt *st;
    int n = 0;
    out[0] = '\0';
    const char *cells = cells_of(db);
    char with_io[512], without_io[256];
    snprintf(with_io, sizeof with_io,
             "SELECT kind FROM (SELECT DISTINCT kind FROM %s WHERE messages > 0 OR bytes > 0)"
             " UNION SELECT 'io' FROM monitor_io WHERE reads > 0 OR writes > 0 ORDER BY 1",
             cells);
    snprintf(without_io, sizeof without_io,
             "SELECT DISTINCT kind FROM %s WHERE messages > 0 OR bytes > 0 ORDER BY 1", cells);
    if (sqlite3_prepare_v2(db, with_io, -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db, without_io, -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s", n++ ? ", " : "",
                 (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return n;
}

int rundb_matrix_cells(sqlite3 *db, const char *kind, const char *phase,
                       void (*each)(int src, int dst, long long messages, long long bytes,
                                    void *ctx),
                       void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT m.src, m.dst, SUM(m.messages), SUM(m.bytes) FROM %s m"
             " JOIN monitor_phases p ON p.id = m.phase_id"
             " WHERE (?1 IS NULL OR p.name = ?1)"
             " AND (m.kind = ?2 OR (?2 = 'all' AND m.kind IN ('p2p', 'coll', 'rma')))"
             " GROUP BY m.src, m.dst",
             cells_of(db));
    st = rundb_query(db, sql, "tt", phase, kind);
    if (!st) {
        snprintf(err, errlen, "the database cannot be read: %s", sqlite3_errmsg(db));
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW)
        each(sqlite3_column_int(st, 0), sqlite3_column_int(st, 1), sqlite3_column_int64(st, 2),
             sqlite3_column_int64(st, 3), ctx);
    sqlite3_finalize(st);
    return 0;
}

int rundb_histogram_of(sqlite3 *db, int src, const char *phase,
                       void (*each)(int dst, int bin, long long messages, void *ctx), void *ctx)
{
    sqlite3_stmt *st = rundb_query(db,
                                   "SELECT h.dst, h.bin, SUM(h.messages) FROM monitor_histogram h"
                                   " JOIN monitor_phases p ON p.id = h.phase_id"
                                   " WHERE h.src = ?1 AND (?2 IS NULL OR p.name = ?2)"
                                   " GROUP BY h.dst, h.bin ORDER BY h.dst, h.bin",
                                   "it", src, phase);
    while (st && sqlite3_step(st) == SQLITE_ROW)
        each(sqlite3_column_int(st, 0), sqlite3_column_int(st, 1), sqlite3_column_int64(st, 2),
             ctx);
    return rundb_query_end(st);
}

void rundb_histogram_bins(sqlite3 *db, int src, int dst, const char *phase, long long bins[66])
{
    memset(bins, 0, 66 * sizeof *bins);
    sqlite3_stmt *st = rundb_query(db,
                                   "SELECT h.bin, SUM(h.messages) FROM monitor_histogram h"
                                   " JOIN monitor_phases p ON p.id = h.phase_id WHERE h.src = ?1"
                                   " AND h.dst = ?2 AND (?3 IS NULL OR p.name = ?3) GROUP BY h.bin",
                                   "iit", src, dst, phase);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        int b = sqlite3_column_int(st, 0);
        if (b >= 0 && b < 66)
            bins[b] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
}

int rundb_matrix_peers(sqlite3 *db, int src, const char *kind, const char *phase,
                       void (*each)(int dst, long long bytes, long long messages, void *ctx),
                       void *ctx)
{
    sqlite3_stmt *st;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT m.dst, SUM(m.bytes), SUM(m.messages) FROM %s m"
             " JOIN monitor_phases p ON p.id = m.phase_id WHERE m.src = ?1"
             " AND m.kind = ?2 AND (?3 IS NULL OR p.name = ?3) GROUP BY m.dst ORDER BY m.dst",
             cells_of(db));
    st = rundb_query(db, sql, "itt", src, kind, phase);
    while (st && sqlite3_step(st) == SQLITE_ROW)
        each(sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
             ctx);
    return rundb_query_end(st);
}

int rundb_io_rows(sqlite3 *db, const char *phase,
                  void (*each)(const struct rundb_io *row, void *ctx), void *ctx)
{
    sqlite3_stmt *st =
        rundb_query(db,
                    "SELECT i.rank, i.file, SUM(i.reads), SUM(i.bytes_read), SUM(i.writes),"
                    " SUM(i.bytes_written) FROM monitor_io i"
                    " JOIN monitor_phases p ON p.id = i.phase_id WHERE (?1 IS NULL OR"
                    " p.name = ?1) GROUP BY i.rank, i.file ORDER BY i.file, i.rank",
                    "t", phase);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        struct rundb_io row = {
            sqlite3_column_int(st, 0),   (const char *)sqlite3_column_text(st, 1),
            sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
            sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5)};
        each(&row, ctx);
    }
    return rundb_query_end(st);
}

int rundb_collectives_of(sqlite3 *db, int rank, const char *phase,
                         void (*each)(const char *name, const char *members, const long long v[6],
                                      void *ctx),
                         void *ctx)
{
    sqlite3_stmt *st = rundb_query(db,
                                   "SELECT c.name, c.members, SUM(o2a_count), SUM(o2a_bytes),"
                                   " SUM(a2o_count), SUM(a2o_bytes), SUM(a2a_count), SUM(a2a_bytes)"
                                   " FROM communicators c"
                                   " LEFT JOIN (monitor_collectives m JOIN monitor_phases p"
                                   " ON p.id = m.phase_id AND (?2 IS NULL OR p.name = ?2))"
                                   " ON c.id = m.comm_id AND m.rank = ?1"
                                   " WHERE m.comm_id IS NOT NULL OR c.name = 'W0.0' GROUP BY c.id"
                                   " ORDER BY c.name",
                                   "it", rank, phase);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        long long v[6];
        for (int k = 0; k < 6; k++)
            v[k] = sqlite3_column_int64(st, 2 + k);
        each((const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1), v,
             ctx);
    }
    return rundb_query_end(st);
}
