/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb.c: open, create and finish the run database.
 *
 * The shared tables (metadata, ranks, communicators, buckets, operations) are created
 * here so every module finds them; each module adds its own tables and rows. A new
 * database is written as DIR/.mpilens.db.PID.tmp and renamed in one step at commit, so a
 * crash never leaves a half-written file under the real name.
 */
#define _GNU_SOURCE
#include "rundb.h"
#include "rundb_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char shared_schema[] =
    "CREATE TABLE IF NOT EXISTS metadata (key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS ranks (rank INTEGER PRIMARY KEY, host TEXT,"
    "  net_time REAL, mpi_time REAL, startup_time REAL);"
    "CREATE TABLE IF NOT EXISTS communicators (id INTEGER PRIMARY KEY, name TEXT UNIQUE,"
    "  size INTEGER, creator TEXT, members TEXT, root INTEGER, ordinal INTEGER,"
    "  members_hash INTEGER);"
    "CREATE TABLE IF NOT EXISTS communicator_members (comm_id INTEGER, rank INTEGER,"
    "  PRIMARY KEY (comm_id, rank)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS buckets (bucket INTEGER PRIMARY KEY, min INTEGER, max INTEGER);"
    "CREATE TABLE IF NOT EXISTS operations (id INTEGER PRIMARY KEY, operation TEXT, kind TEXT);";

const char rundb_monitor_schema[] =
    "CREATE TABLE IF NOT EXISTS monitor_phases (id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
    "CREATE TABLE IF NOT EXISTS monitor_hosts (rank INTEGER PRIMARY KEY, host TEXT);"
    "CREATE TABLE IF NOT EXISTS host_topologies (host TEXT PRIMARY KEY, topology TEXT);"
    "CREATE TABLE IF NOT EXISTS monitor_matrix (phase_id INTEGER, kind TEXT, src INTEGER,"
    "  dst INTEGER, messages INTEGER, bytes INTEGER);"
    "CREATE TABLE IF NOT EXISTS monitor_histogram (phase_id INTEGER, src INTEGER, dst INTEGER,"
    "  bin INTEGER, messages INTEGER);"
    "CREATE TABLE IF NOT EXISTS monitor_collectives (phase_id INTEGER, comm_id INTEGER,"
    "  rank INTEGER, o2a_count INTEGER, o2a_bytes INTEGER, a2o_count INTEGER,"
    "  a2o_bytes INTEGER, a2a_count INTEGER, a2a_bytes INTEGER, uniform_messages INTEGER,"
    "  uniform_bytes INTEGER);"
    /* the matrix as readers want it: the stored cells, and the uniform all-to-all traffic
     * (stored once per communicator and rank) spread over the other members */
    "CREATE VIEW IF NOT EXISTS monitor_cells AS"
    "  SELECT phase_id, kind, src, dst, messages, bytes FROM monitor_matrix"
    "  UNION ALL"
    "  SELECT c.phase_id, 'coll', c.rank, m.rank, c.uniform_messages, c.uniform_bytes"
    "  FROM monitor_collectives c JOIN communicator_members m ON m.comm_id = c.comm_id"
    "  WHERE c.uniform_messages > 0 AND m.rank != c.rank;"
    "CREATE TABLE IF NOT EXISTS monitor_io (phase_id INTEGER, rank INTEGER, file TEXT,"
    "  reads INTEGER, bytes_read INTEGER, writes INTEGER, bytes_written INTEGER);";

/* The first failure of a write since rundb_begin (writes run in one thread at a time:
 * MPI_Finalize on rank 0, or the CLI). */
static char first_failure[1024];

/* SQLite's text for DB's last error, with the system's when a file operation failed. */
static void describe_error(sqlite3 *db, const char *text, char *out, size_t len)
{
    int sys = db ? sqlite3_system_errno(db) : 0;
    int code = db ? sqlite3_errcode(db) & 0xff : 0;
    if (sys && (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN ||
                code == SQLITE_READONLY))
        snprintf(out, len, "SQLite: %s (%s)", text, strerror(sys));
    else
        snprintf(out, len, "SQLite: %s", text);
}

static void note_failure(sqlite3 *db, const char *text)
{
    if (!first_failure[0])
        describe_error(db, text, first_failure, sizeof first_failure);
}

int rundb_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    describe_error(db, msg ? msg : sqlite3_errmsg(db), err, errlen);
    note_failure(db, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

int rundb_prepare(sqlite3 *db, const char *sql, int nbyte, sqlite3_stmt **st, const char **tail)
{
    int rc = sqlite3_prepare_v2(db, sql, nbyte, st, tail);
    if (rc != SQLITE_OK)
        note_failure(db, sqlite3_errmsg(db));
    return rc;
}

int rundb_step(sqlite3_stmt *st)
{
    if (!st)
        return -1; /* its preparation failed, and said why */
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        note_failure(sqlite3_db_handle(st), sqlite3_errmsg(sqlite3_db_handle(st)));
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

int rundb_failure_take(char *err, size_t errlen)
{
    if (!first_failure[0])
        return 0;
    snprintf(err, errlen, "%s", first_failure);
    first_failure[0] = '\0';
    return 1;
}

/* "PATH: MESSAGE" in ERR, unless it names the file already. */
static void prefix_path(const struct rundb *run, char *err, size_t errlen)
{
    if (strstr(err, run->path))
        return;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", err);
    snprintf(err, errlen, "%s: %s", run->path, copy);
}

/* The batch job the writing process belongs to (Slurm's environment: rank 0 at
 * MPI_Finalize, or the CLI recovering inside the job's allocation), kept if a writer
 * before it already recorded one. */
static int put_launch_metadata(sqlite3 *db, char *err, size_t errlen)
{
    static const char *const keys[][2] = {{"Slurm job", "SLURM_JOB_ID"},
                                          {"Slurm step", "SLURM_STEP_ID"},
                                          {"Slurm job name", "SLURM_JOB_NAME"},
                                          {"Slurm cluster", "SLURM_CLUSTER_NAME"}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *value = getenv(keys[i][1]);
        if (!value || !*value)
            continue;
        sqlite3_stmt *st = NULL;
        int rc =
            sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO metadata VALUES (?1, ?2)", -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_text(st, 1, keys[i][0], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
            rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_OK) {
            describe_error(db, "recording the Slurm job", err, errlen);
            return -1;
        }
    }
    return 0;
}

int rundb_begin(struct rundb *run, const char *dir, char *err, size_t errlen)
{
    return rundb_begin_file(run, dir, RUNDB_FILE, err, errlen);
}

int rundb_begin_file(struct rundb *run, const char *dir, const char *file, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    first_failure[0] = '\0';
    snprintf(run->path, sizeof run->path, "%s/%s", dir, file);
    const char *target = run->path, *slash = strrchr(file, '/');
    if (access(run->path, F_OK) != 0) { /* DIR/SUB/.NAME.PID.tmp beside DIR/SUB/NAME */
        snprintf(run->temp_path, sizeof run->temp_path, "%s/%.*s.%s.%d.tmp", dir,
                 slash ? (int)(slash - file + 1) : 0, file, slash ? slash + 1 : file,
                 (int)getpid());
        unlink(run->temp_path);
        target = run->temp_path;
    }
    if (sqlite3_open(target, &run->db) != SQLITE_OK) {
        int sys = run->db ? sqlite3_system_errno(run->db) : 0;
        snprintf(err, errlen,
                 "%s: cannot create the database (%s%s%s%s); choose a writable output "
                 "directory",
                 target, run->db ? sqlite3_errmsg(run->db) : "out of memory", sys ? ": " : "",
                 sys ? strerror(sys) : "", "");
        sqlite3_close(run->db);
        run->db = NULL;
        return -1;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=DELETE; BEGIN; PRAGMA user_version=%d;",
             RUNDB_SCHEMA_VERSION);
    if (rundb_exec(run->db, sql, err, errlen) || rundb_exec(run->db, shared_schema, err, errlen) ||
        put_launch_metadata(run->db, err, errlen)) {
        prefix_path(run, err, errlen);
        rundb_abort(run);
        return -1;
    }
    return 0;
}

/* The writers' statements go before the transaction ends. */
static void finalize_statements(struct rundb *run)
{
    for (int i = 0; i < RUNDB_STMTS; i++) {
        sqlite3_finalize(run->stmts[i]);
        run->stmts[i] = NULL;
    }
}

int rundb_commit(struct rundb *run, char *err, size_t errlen)
{
    finalize_statements(run);
    /* a statement that failed before (its writer went on) leaves nothing half-written */
    if (rundb_failure_take(err, errlen) || rundb_exec(run->db, "COMMIT;", err, errlen) != 0) {
        prefix_path(run, err, errlen);
        rundb_abort(run);
        return -1;
    }
    sqlite3_close(run->db);
    run->db = NULL;
    if (run->temp_path[0] && rename(run->temp_path, run->path) != 0) {
        snprintf(err, errlen, "%s: cannot move the database into place (%s)", run->path,
                 strerror(errno));
        unlink(run->temp_path);
        return -1;
    }
    return 0;
}

int rundb_finish(struct rundb *run, int failed, const char *what, char *err, size_t errlen)
{
    if (!failed)
        return rundb_commit(run, err, errlen);
    char why[1024] = "";
    if (rundb_failure_take(why, sizeof why) || !err[0])
        snprintf(err, errlen, "%s: writing %s failed: %s", run->path, what,
                 why[0] ? why : "unknown error");
    rundb_abort(run);
    return -1;
}

void rundb_abort(struct rundb *run)
{
    finalize_statements(run);
    if (run->db) {
        sqlite3_exec(run->db, "ROLLBACK;", NULL, NULL, NULL);
        sqlite3_close(run->db);
        run->db = NULL;
    }
    if (run->temp_path[0])
        unlink(run->temp_path);
}

/* Runs SQL (one statement, parameters ?1 = A and ?2 = B) on the database at PATH (made if
 * missing), for the marks written after the run; 0, or -1 with err. */
static int mark(const char *path, const char *sql, const char *a, const char *b, char *err,
                size_t errlen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    /* made with the shared tables when no module wrote one (an out-of-tree module's run) */
    int rc =
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) == SQLITE_OK &&
                sqlite3_busy_timeout(db, 5000) == SQLITE_OK &&
                sqlite3_exec(db, shared_schema, NULL, NULL, NULL) == SQLITE_OK &&
                sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK
            ? 0
            : -1;
    if (rc == 0) {
        sqlite3_bind_text(st, 1, a, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    }
    if (rc != 0) {
        char text[1024];
        describe_error(db, db ? sqlite3_errmsg(db) : "cannot open", text, sizeof text);
        snprintf(err, errlen, "%s: cannot mark the run incomplete: %s", path, text);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int rundb_mark_ended(const char *path, const char *endings, int processes, char *err, size_t errlen)
{
    char procs[32];
    snprintf(procs, sizeof procs, "%d", processes);
    return mark(path,
                "INSERT OR REPLACE INTO metadata (key, value) VALUES ('Incomplete', ?1), "
                "('Processes', ?2)",
                endings, procs, err, errlen);
}

int rundb_note_incomplete(const char *path, const char *why, char *err, size_t errlen)
{
    return mark(path,
                "INSERT INTO metadata (key, value) VALUES ('Incomplete', ?1) ON CONFLICT(key) "
                "DO UPDATE SET value = CASE WHEN instr(value, ?1) THEN value ELSE value || "
                "'; ' || ?1 END",
                why, NULL, err, errlen);
}

int rundb_open_read(const char *path, sqlite3 **db, char *err, size_t errlen)
{
    *db = NULL;
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen,
                 "%s: no such database; give the mpilens.db of a run "
                 "(mpilens run prints where it is)",
                 path);
        return -1;
    }
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open (%s)", path, sqlite3_errmsg(*db));
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    int version = rundb_one_int(*db, "PRAGMA user_version", -1);
    int tables = rundb_one_int(*db,
                               "SELECT count(*) FROM sqlite_master WHERE name IN "
                               "('metadata','ranks','communicators')",
                               0);
    if (tables != 3 || version < 1) {
        snprintf(err, errlen,
                 "%s: not an mpilens run database; give the mpilens.db that "
                 "`mpilens run` wrote",
                 path);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    if (version > RUNDB_SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "%s: written by a newer mpilens (schema %d, this one reads %d); "
                 "upgrade mpilens",
                 path, version, RUNDB_SCHEMA_VERSION);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

sqlite3_stmt *rundb_query(sqlite3 *db, const char *sql, const char *types, ...)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    va_list args;
    va_start(args, types);
    for (int i = 0; types[i]; i++) {
        if (types[i] == 'i')
            sqlite3_bind_int(st, i + 1, va_arg(args, int));
        else
            sqlite3_bind_text(st, i + 1, va_arg(args, const char *), -1, SQLITE_STATIC);
    }
    va_end(args);
    return st;
}

int rundb_query_end(sqlite3_stmt *st)
{
    if (!st)
        return -1;
    sqlite3_finalize(st);
    return 0;
}

double rundb_one_number(sqlite3 *db, const char *sql, const char *text, int rank)
{
    sqlite3_stmt *st = rundb_query(db, sql, "ti", text, rank);
    double v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : 0;
    sqlite3_finalize(st);
    return v;
}

int rundb_one_int(sqlite3 *db, const char *sql, int otherwise)
{
    sqlite3_stmt *st = NULL;
    int v = otherwise;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

int rundb_any_row(sqlite3 *db, const char *sql, const char *text)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

int rundb_has_table(sqlite3 *db, const char *name)
{
    return rundb_any_row(db, "SELECT 1 FROM sqlite_master WHERE name = ?", name);
}

/* ---- the readers' handle (rundb_read.h) ---- */

void rundb_close(sqlite3 *db)
{
    sqlite3_close(db);
}

const char *rundb_path(sqlite3 *db)
{
    return sqlite3_db_filename(db, "main");
}

int rundb_metadata_get(sqlite3 *db, const char *key, char *out, size_t len)
{
    sqlite3_stmt *st = NULL;
    int found = sqlite3_prepare_v2(db, "SELECT value FROM metadata WHERE key = ?1", -1, &st,
                                   NULL) == SQLITE_OK &&
                sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) == SQLITE_OK &&
                sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0);
    if (found)
        snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return found;
}

int rundb_table_has_rows(sqlite3 *db, const char *table)
{
    if (!rundb_has_table(db, table))
        return 0;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT 1 FROM \"%s\" LIMIT 1", table);
    sqlite3_stmt *st = NULL;
    int found =
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}
