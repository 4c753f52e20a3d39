/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb_write.c: every table's schema and every row written into the run database
 * (rundb_write.h). Statements are prepared on first use in a transaction and kept in the
 * rundb (finalized at its end); a failure's text is kept by rundb_step for rundb_finish.
 */
#include "rundb_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum statement {
    ST_METADATA,
    ST_METADATA_DEFAULT,
    ST_RANK,
    ST_BUCKET,
    ST_OPERATION,
    ST_COMM,
    ST_COMM_ID,
    ST_COMM_IDENTITY,
    ST_COMM_MEMBER,
    ST_PROFILE,
    ST_PROFILE_SUMMARY,
    ST_SITE_SUMMARY,
    ST_SITE_ID,
    ST_SITE,
    ST_SITE_PROFILE,
    ST_PHASE,
    ST_MATRIX,
    ST_HISTOGRAM,
    ST_COLLECTIVES,
    ST_IO,
    ST_LIB_MATRIX,
    ST_WAIT,
    ST_WAIT_INTERVAL,
    ST_WAIT_TIME,
    ST_PHASE_TIME,
    ST_RANK_HOST,
    ST_HOST_TOPOLOGY,
    ST_COUNT
};
_Static_assert(ST_COUNT <= RUNDB_STMTS, "struct rundb keeps every statement");

/* RUN's statement WHICH, prepared from SQL on first use (NULL if that failed: said). */
static sqlite3_stmt *statement(struct rundb *run, enum statement which, const char *sql)
{
    if (!run->stmts[which])
        rundb_prepare(run->db, sql, -1, &run->stmts[which], NULL);
    return run->stmts[which];
}

static int exec(struct rundb *run, const char *sql)
{
    char err[1024];
    return rundb_exec(run->db, sql, err, sizeof err);
}

/* ---- shared tables ---- */

/* A statement of two text parameters, A and B, run once. */
static int put_two_texts(struct rundb *run, enum statement which, const char *sql, const char *a,
                         const char *b)
{
    sqlite3_stmt *st = statement(run, which, sql);
    if (st) {
        sqlite3_bind_text(st, 1, a, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
    }
    return rundb_step(st);
}

int rundb_put_metadata(struct rundb *run, const char *key, const char *value)
{
    return put_two_texts(run, ST_METADATA, "INSERT OR REPLACE INTO metadata VALUES (?, ?)", key,
                         value);
}

int rundb_put_metadata_default(struct rundb *run, const char *key, const char *value)
{
    return put_two_texts(run, ST_METADATA_DEFAULT, "INSERT OR IGNORE INTO metadata VALUES (?, ?)",
                         key, value);
}

int rundb_put_rank(struct rundb *run, int rank, const char *host, double net_s, double mpi_s,
                   double startup_s)
{
    sqlite3_stmt *st = statement(run, ST_RANK,
                                 "INSERT OR REPLACE INTO ranks (rank, host, net_time, mpi_time,"
                                 " startup_time) VALUES (?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, rank);
        sqlite3_bind_text(st, 2, host, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 3, net_s);
        sqlite3_bind_double(st, 4, mpi_s);
        sqlite3_bind_double(st, 5, startup_s);
    }
    return rundb_step(st);
}

int rundb_put_bucket(struct rundb *run, int bucket, int64_t min, int64_t max)
{
    sqlite3_stmt *st = statement(run, ST_BUCKET, "INSERT OR REPLACE INTO buckets VALUES (?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, bucket);
        sqlite3_bind_int64(st, 2, min);
        sqlite3_bind_int64(st, 3, max);
    }
    return rundb_step(st);
}

int rundb_put_operation(struct rundb *run, int id, const char *name, const char *kind)
{
    sqlite3_stmt *st =
        statement(run, ST_OPERATION, "INSERT OR REPLACE INTO operations VALUES (?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, id);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
    }
    return rundb_step(st);
}

int rundb_put_communicator(struct rundb *run, const char *name, int size, const char *creator,
                           const int32_t *members, const struct rundb_comm_identity *identity,
                           int *id)
{
    size_t cap = 16 + 12 * (size_t)(size > 0 ? size : 0), used = 0;
    char *text = malloc(cap); /* the members column: world ranks, comma-separated */
    if (!text)
        return -1;
    text[0] = '\0';
    for (int m = 0; m < size; m++)
        used += snprintf(text + used, cap - used, "%s%d", m ? "," : "", (int)members[m]);
    sqlite3_stmt *st = statement(run, ST_COMM,
                                 "INSERT OR IGNORE INTO communicators (name, size, creator, "
                                 "members, root, ordinal, members_hash) VALUES (?1, ?2, ?3, ?4, "
                                 "?5, ?6, ?7)");
    if (st) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 2, size);
        sqlite3_bind_text(st, 3, creator, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, text, -1, SQLITE_TRANSIENT);
        if (identity) {
            sqlite3_bind_int(st, 5, identity->root);
            sqlite3_bind_int(st, 6, identity->ordinal);
            sqlite3_bind_int64(st, 7, (sqlite3_int64)identity->members_hash);
        }
    }
    int rc = rundb_step(st);
    free(text);
    int fresh = rc == 0 && sqlite3_changes(run->db) == 1;
    /* kept from another module that did not know its identity: the identity added */
    sqlite3_stmt *known = !fresh && rc == 0 && identity
                              ? statement(run, ST_COMM_IDENTITY,
                                          "UPDATE communicators SET root = ?1, ordinal = ?2, "
                                          "members_hash = ?3 WHERE name = ?4 AND root IS NULL")
                              : NULL;
    if (known) {
        sqlite3_bind_int(known, 1, identity->root);
        sqlite3_bind_int(known, 2, identity->ordinal);
        sqlite3_bind_int64(known, 3, (sqlite3_int64)identity->members_hash);
        sqlite3_bind_text(known, 4, name, -1, SQLITE_TRANSIENT);
        rc = rundb_step(known);
    }
    int found = -1;
    sqlite3_stmt *find = statement(run, ST_COMM_ID, "SELECT id FROM communicators WHERE name = ?");
    if (find) {
        sqlite3_bind_text(find, 1, name, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(find) == SQLITE_ROW)
            found = sqlite3_column_int(find, 0);
        sqlite3_reset(find);
    }
    if (id)
        *id = found;
    /* a new communicator's members, one row each (what the monitor_cells view joins) */
    sqlite3_stmt *member = fresh && found >= 0 ? statement(run, ST_COMM_MEMBER,
                                                           "INSERT OR IGNORE INTO "
                                                           "communicator_members VALUES (?, ?)")
                                               : NULL;
    for (int m = 0; member && m < size && rc == 0; m++) {
        sqlite3_bind_int(member, 1, found);
        sqlite3_bind_int(member, 2, members[m]);
        rc = rundb_step(member);
    }
    return rc;
}

/* ---- the profile ---- */

int rundb_profile_create(struct rundb *run)
{
    /* the views give mpisee's schema, so its analysis script reads the database unchanged */
    return exec(run,
                "CREATE TABLE IF NOT EXISTS profile (rank INTEGER, comm_id INTEGER, operation_id "
                "INTEGER,  bucket INTEGER, calls INTEGER, time REAL, max_time REAL, volume "
                "INTEGER);"
                "CREATE VIEW IF NOT EXISTS mappings AS SELECT rank AS id, host AS machine FROM "
                "ranks;"
                "CREATE VIEW IF NOT EXISTS exectimes AS SELECT rank AS id, net_time AS time FROM "
                "ranks;"
                "CREATE VIEW IF NOT EXISTS comms AS SELECT id, name, size FROM communicators;"
                "CREATE VIEW IF NOT EXISTS data AS SELECT p.rowid AS id, p.rank, p.comm_id, "
                "p.operation_id,  b.min AS buffer_size_min, b.max AS buffer_size_max, p.calls, "
                "p.time, p.volume  FROM profile p JOIN buckets b ON b.bucket = p.bucket;");
}

int rundb_put_profile(struct rundb *run, int rank, int comm_id, int operation_id, int bucket,
                      int64_t calls, double time, double max_time, int64_t volume)
{
    sqlite3_stmt *st =
        statement(run, ST_PROFILE, "INSERT INTO profile VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, rank);
        sqlite3_bind_int(st, 2, comm_id);
        sqlite3_bind_int(st, 3, operation_id);
        sqlite3_bind_int(st, 4, bucket);
        sqlite3_bind_int64(st, 5, calls);
        sqlite3_bind_double(st, 6, time);
        sqlite3_bind_double(st, 7, max_time);
        sqlite3_bind_int64(st, 8, volume);
    }
    return rundb_step(st);
}

int rundb_profile_summary_create(struct rundb *run)
{
    return exec(run, "CREATE TABLE IF NOT EXISTS profile_summary (comm_id INTEGER, operation_id "
                     "INTEGER, bucket INTEGER, ranks INTEGER, calls INTEGER, volume INTEGER, "
                     "time REAL, time_mean REAL, time_var REAL, time_min REAL, time_min_rank "
                     "INTEGER, time_max REAL, time_max_rank INTEGER, max_time REAL);"
                     "CREATE TABLE IF NOT EXISTS callsite_summary (callsite_id INTEGER, "
                     "operation_id INTEGER, ranks INTEGER, calls INTEGER, time REAL, max_time "
                     "REAL, min_time REAL, volume INTEGER);");
}

int rundb_put_profile_summary(struct rundb *run, int comm_id, int operation_id, int bucket,
                              const struct rundb_summary_cell *c)
{
    sqlite3_stmt *st = statement(run, ST_PROFILE_SUMMARY,
                                 "INSERT INTO profile_summary VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                                 "?8, ?9, ?10, ?11, ?12, ?13, ?14)");
    if (st) {
        sqlite3_bind_int(st, 1, comm_id);
        sqlite3_bind_int(st, 2, operation_id);
        sqlite3_bind_int(st, 3, bucket);
        sqlite3_bind_int64(st, 4, c->ranks);
        sqlite3_bind_int64(st, 5, c->calls);
        sqlite3_bind_int64(st, 6, c->volume);
        sqlite3_bind_double(st, 7, c->time);
        sqlite3_bind_double(st, 8, c->time_mean);
        sqlite3_bind_double(st, 9, c->time_var);
        sqlite3_bind_double(st, 10, c->time_min);
        sqlite3_bind_int(st, 11, c->time_min_rank);
        sqlite3_bind_double(st, 12, c->time_max);
        sqlite3_bind_int(st, 13, c->time_max_rank);
        sqlite3_bind_double(st, 14, c->max_time);
    }
    return rundb_step(st);
}

int rundb_callsites_create(struct rundb *run)
{
    return exec(run, "CREATE TABLE IF NOT EXISTS callsites (id INTEGER PRIMARY KEY, object TEXT, "
                     "offset INTEGER,  function TEXT, file TEXT, line INTEGER);"
                     "CREATE TABLE IF NOT EXISTS callsite_profile (rank INTEGER, callsite_id "
                     "INTEGER,  operation_id INTEGER, calls INTEGER, time REAL, max_time REAL, "
                     "min_time REAL,  volume INTEGER);");
}

int64_t rundb_callsite_id(struct rundb *run, const char *object, uint64_t offset)
{
    sqlite3_stmt *st =
        statement(run, ST_SITE_ID, "SELECT id FROM callsites WHERE object = ?1 AND offset = ?2");
    int64_t id = -1;
    if (st) {
        sqlite3_bind_text(st, 1, object, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)offset);
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
    }
    return id;
}

int64_t rundb_put_callsite(struct rundb *run, const char *object, uint64_t offset,
                           const char *function, const char *file, int line)
{
    sqlite3_stmt *st = statement(run, ST_SITE,
                                 "INSERT INTO callsites (object, offset, function, file, line) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (st) {
        sqlite3_bind_text(st, 1, object, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)offset);
        sqlite3_bind_text(st, 3, function, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, file, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 5, line);
    }
    return rundb_step(st) == 0 ? sqlite3_last_insert_rowid(run->db) : -1;
}

/* One call site row into ST: FIRST (a rank, or a count of ranks), then the site's cell. */
static int bind_site_row(sqlite3_stmt *st, int first, int64_t site, int operation_id,
                         uint64_t calls, double seconds, double max_s, double min_s,
                         uint64_t volume)
{
    if (st) {
        sqlite3_bind_int(st, 1, first);
        sqlite3_bind_int64(st, 2, site);
        sqlite3_bind_int(st, 3, operation_id);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)calls);
        sqlite3_bind_double(st, 5, seconds);
        sqlite3_bind_double(st, 6, max_s);
        sqlite3_bind_double(st, 7, min_s);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)volume);
    }
    return rundb_step(st);
}

int rundb_put_callsite_summary(struct rundb *run, int ranks, int64_t site, int operation_id,
                               uint64_t calls, double seconds, double max_s, double min_s,
                               uint64_t volume)
{
    sqlite3_stmt *st = statement(run, ST_SITE_SUMMARY,
                                 "INSERT INTO callsite_summary VALUES (?2, ?3, ?1, ?4, ?5, ?6, ?7, "
                                 "?8)");
    return bind_site_row(st, ranks, site, operation_id, calls, seconds, max_s, min_s, volume);
}

int rundb_put_callsite_profile(struct rundb *run, int rank, int64_t site, int operation_id,
                               uint64_t calls, double seconds, double max_s, double min_s,
                               uint64_t volume)
{
    sqlite3_stmt *st =
        statement(run, ST_SITE_PROFILE,
                  "INSERT INTO callsite_profile VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    return bind_site_row(st, rank, site, operation_id, calls, seconds, max_s, min_s, volume);
}

/* ---- the monitor ---- */

int rundb_monitor_create(struct rundb *run)
{
    return exec(run, rundb_monitor_schema);
}

int rundb_put_rank_host(struct rundb *run, int rank, const char *host)
{
    sqlite3_stmt *st =
        statement(run, ST_RANK_HOST, "INSERT OR REPLACE INTO monitor_hosts VALUES (?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, rank);
        sqlite3_bind_text(st, 2, host, -1, SQLITE_TRANSIENT);
    }
    return rundb_step(st);
}

int rundb_put_host_topology(struct rundb *run, const char *host, const char *topology)
{
    return put_two_texts(run, ST_HOST_TOPOLOGY,
                         "INSERT OR REPLACE INTO host_topologies VALUES (?, ?)", host, topology);
}

int rundb_put_phase(struct rundb *run, int id, const char *name)
{
    sqlite3_stmt *st = statement(run, ST_PHASE, "INSERT INTO monitor_phases VALUES (?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, id);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    }
    return rundb_step(st);
}

int rundb_put_matrix(struct rundb *run, int phase, const char *kind, int src, int dst,
                     uint64_t messages, uint64_t bytes)
{
    sqlite3_stmt *st =
        statement(run, ST_MATRIX, "INSERT INTO monitor_matrix VALUES (?, ?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, phase);
        sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 3, src);
        sqlite3_bind_int(st, 4, dst);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)messages);
        sqlite3_bind_int64(st, 6, (sqlite3_int64)bytes);
    }
    return rundb_step(st);
}

int rundb_put_histogram(struct rundb *run, int phase, int src, int dst, int bin, uint64_t messages)
{
    sqlite3_stmt *st =
        statement(run, ST_HISTOGRAM, "INSERT INTO monitor_histogram VALUES (?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, phase);
        sqlite3_bind_int(st, 2, src);
        sqlite3_bind_int(st, 3, dst);
        sqlite3_bind_int(st, 4, bin);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)messages);
    }
    return rundb_step(st);
}

int rundb_put_collectives(struct rundb *run, int phase, int comm_id, int rank, const uint64_t v[8])
{
    sqlite3_stmt *st =
        statement(run, ST_COLLECTIVES,
                  "INSERT INTO monitor_collectives VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, phase);
        sqlite3_bind_int(st, 2, comm_id);
        sqlite3_bind_int(st, 3, rank);
        for (int k = 0; k < 8; k++)
            sqlite3_bind_int64(st, 4 + k, (sqlite3_int64)v[k]);
    }
    return rundb_step(st);
}

int rundb_put_io(struct rundb *run, int phase, int rank, const char *file, const uint64_t v[4])
{
    sqlite3_stmt *st = statement(run, ST_IO, "INSERT INTO monitor_io VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, phase);
        sqlite3_bind_int(st, 2, rank);
        sqlite3_bind_text(st, 3, file, -1, SQLITE_TRANSIENT);
        for (int k = 0; k < 4; k++)
            sqlite3_bind_int64(st, 4 + k, (sqlite3_int64)v[k]);
    }
    return rundb_step(st);
}

int rundb_lib_matrix_reset(struct rundb *run)
{
    return exec(run, "INSERT OR IGNORE INTO monitor_phases (name) VALUES ('run');"
                     "DELETE FROM monitor_matrix WHERE kind IN ('lib_p2p', 'lib_coll');");
}

int rundb_put_lib_matrix(struct rundb *run, const char *kind, int src, int dst, uint64_t messages,
                         uint64_t bytes)
{
    sqlite3_stmt *st = statement(run, ST_LIB_MATRIX,
                                 "INSERT INTO monitor_matrix SELECT id, ?1, ?2, ?3, ?4, ?5"
                                 " FROM monitor_phases WHERE name = 'run'");
    if (st) {
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 2, src);
        sqlite3_bind_int(st, 3, dst);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)messages);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)bytes);
    }
    return rundb_step(st);
}

/* ---- wait states ---- */

int rundb_waits_create(struct rundb *run)
{
    return exec(run,
                "DROP TABLE IF EXISTS waits; DROP TABLE IF EXISTS wait_times;"
                "DROP TABLE IF EXISTS wait_intervals; DROP TABLE IF EXISTS phase_times;"
                "CREATE TABLE waits (pattern TEXT, region TEXT, rank INTEGER, seconds REAL, "
                "phase TEXT);"
                "CREATE TABLE wait_times (rank INTEGER PRIMARY KEY, seconds REAL);"
                "CREATE TABLE wait_intervals (rank INTEGER, pattern TEXT, region TEXT, "
                "start INTEGER,  end INTEGER);"
                "CREATE TABLE phase_times (phase TEXT, rank INTEGER, seconds REAL, computing REAL, "
                "ideal REAL);");
}

int rundb_put_wait(struct rundb *run, const char *pattern, const char *region, int rank,
                   double seconds, const char *phase)
{
    sqlite3_stmt *st = statement(run, ST_WAIT, "INSERT INTO waits VALUES (?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_text(st, 1, pattern, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, region, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 3, rank);
        sqlite3_bind_double(st, 4, seconds);
        if (phase)
            sqlite3_bind_text(st, 5, phase, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, 5);
    }
    return rundb_step(st);
}

int rundb_put_wait_interval(struct rundb *run, int rank, const char *pattern, const char *region,
                            int64_t start, int64_t end)
{
    sqlite3_stmt *st =
        statement(run, ST_WAIT_INTERVAL, "INSERT INTO wait_intervals VALUES (?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, rank);
        sqlite3_bind_text(st, 2, pattern, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, region, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, start);
        sqlite3_bind_int64(st, 5, end);
    }
    return rundb_step(st);
}

int rundb_put_phase_time(struct rundb *run, const char *phase, int rank, double seconds,
                         double computing, double ideal)
{
    sqlite3_stmt *st =
        statement(run, ST_PHASE_TIME, "INSERT INTO phase_times VALUES (?, ?, ?, ?, ?)");
    if (st) {
        sqlite3_bind_text(st, 1, phase, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 2, rank);
        sqlite3_bind_double(st, 3, seconds);
        sqlite3_bind_double(st, 4, computing);
        sqlite3_bind_double(st, 5, ideal);
    }
    return rundb_step(st);
}

int rundb_put_wait_time(struct rundb *run, int rank, double seconds)
{
    sqlite3_stmt *st = statement(run, ST_WAIT_TIME, "INSERT INTO wait_times VALUES (?, ?)");
    if (st) {
        sqlite3_bind_int(st, 1, rank);
        sqlite3_bind_double(st, 2, seconds);
    }
    return rundb_step(st);
}
