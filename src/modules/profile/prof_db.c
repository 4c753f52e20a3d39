/* prof_db.c: rank 0 writes the merged profile into the run database.
 *
 * Shared tables (metadata, ranks, communicators, buckets, operations) come from
 * src/db/rundb.c; the profile adds its rows (table profile) and the views that give
 * mpisee's schema (mappings, exectimes, comms, data), so mpisee's analysis script reads
 * the database unchanged. Everything goes in through bound parameters, in one transaction.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpilens.h"
#include "prof.h"
#include "prof_merge.h"
#include "rundb.h"

static const char profile_schema[] =
    "CREATE TABLE IF NOT EXISTS profile (rank INTEGER, comm_id INTEGER, operation_id INTEGER,"
    "  bucket INTEGER, calls INTEGER, time REAL, max_time REAL, volume INTEGER);"
    "CREATE VIEW IF NOT EXISTS mappings AS SELECT rank AS id, host AS machine FROM ranks;"
    "CREATE VIEW IF NOT EXISTS exectimes AS SELECT rank AS id, net_time AS time FROM ranks;"
    "CREATE VIEW IF NOT EXISTS comms AS SELECT id, name, size FROM communicators;"
    "CREATE VIEW IF NOT EXISTS data AS SELECT p.rowid AS id, p.rank, p.comm_id, p.operation_id,"
    "  b.min AS buffer_size_min, b.max AS buffer_size_max, p.calls, p.time, p.volume"
    "  FROM profile p JOIN buckets b ON b.bucket = p.bucket;";

static int put_meta(sqlite3 *db, const char *key, const char *value)
{
    sqlite3_stmt *st;
    if (rundb_prepare(db, "INSERT OR REPLACE INTO metadata VALUES (?, ?)", -1, &st, NULL))
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
    int rc = rundb_step(st);
    sqlite3_finalize(st);
    return rc;
}

const char *prof_run_command;

static void command_line(char *out, size_t len)
{
    out[0] = '\0';
    if (prof_run_command) {
        snprintf(out, len, "%s", prof_run_command);
        return;
    }
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i + 1 < n; i++)
        if (out[i] == '\0')
            out[i] = ' ';
}

static int write_metadata(sqlite3 *db, const struct profile_set *set, double wall)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "", text[8192], buckets[1024] = "";
    int len = 0;
    PMPI_Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl)
        *nl = '\0';
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %z", localtime(&now));
    for (int b = 0; b < prof_nbuckets - 1; b++)
        snprintf(buckets + strlen(buckets), sizeof buckets - strlen(buckets), "%s%lld",
                 b ? "," : "", (long long)prof_bounds[b]);
    int rc = put_meta(db, "MPI Library", version);
    snprintf(text, sizeof text, "%zu", set->nranks);
    rc |= put_meta(db, "Processes", text);
    command_line(text, sizeof text);
    rc |= put_meta(db, "Run command", text);
    rc |= put_meta(db, "Profile date", date);
    rc |= put_meta(db, "mpilens version", MPILENS_VERSION);
    rc |= put_meta(db, "mpisee version", "4.1 (schema as written by mpilens " MPILENS_VERSION ")");
    rc |= put_meta(db, "Buckets", buckets);
    snprintf(text, sizeof text, "%.6f", wall);
    rc |= put_meta(db, "Wall time", text);
    snprintf(text, sizeof text, "%d", RUNDB_SCHEMA_VERSION);
    rc |= put_meta(db, "Schema version", text);
    return rc;
}

static int write_tables(sqlite3 *db, const struct profile_set *set)
{
    sqlite3_stmt *st;
    int rc = 0;
    rundb_prepare(db, "INSERT OR REPLACE INTO ranks VALUES (?, ?, ?, ?)", -1, &st, NULL);
    for (size_t i = 0; i < set->nranks; i++) {
        sqlite3_bind_int(st, 1, set->ranks[i].rank);
        sqlite3_bind_text(st, 2, set->ranks[i].host, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 3, set->ranks[i].net_s);
        sqlite3_bind_double(st, 4, set->ranks[i].mpi_s);
        rc |= rundb_step(st) != 0;
    }
    sqlite3_finalize(st);

    rundb_prepare(db, "INSERT OR REPLACE INTO buckets VALUES (?, ?, ?)", -1, &st, NULL);
    for (int b = 0; b < prof_nbuckets; b++) {
        int64_t lo = b == 0 ? 0 : prof_bounds[b - 1] + 1;
        int64_t hi = b == prof_nbuckets - 1 ? 2147483647 : prof_bounds[b];
        sqlite3_bind_int(st, 1, b);
        sqlite3_bind_int64(st, 2, lo);
        sqlite3_bind_int64(st, 3, hi < lo ? lo : hi);
        rc |= rundb_step(st) != 0;
    }
    sqlite3_finalize(st);

    rundb_prepare(db, "INSERT OR REPLACE INTO operations VALUES (?, ?, ?)", -1, &st, NULL);
    for (int op = 0; op < prof_op_count; op++) {
        sqlite3_bind_int(st, 1, op);
        sqlite3_bind_text(st, 2, prof_ops[op].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, prof_ops[op].kind, -1, SQLITE_STATIC);
        rc |= rundb_step(st) != 0;
    }
    sqlite3_finalize(st);

    int *ids = calloc(set->comms.ncomms + 1, sizeof *ids);
    rc |= lens_comm_set_write(db, &set->comms, ids);
    rundb_prepare(db, "INSERT INTO profile VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL);
    for (size_t i = 0; i < set->nrows; i++) {
        const struct wire_row *r = &set->rows[i];
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_int(st, 2, ids[r->comm]);
        sqlite3_bind_int(st, 3, r->op);
        sqlite3_bind_int(st, 4, r->bucket);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)r->calls);
        sqlite3_bind_double(st, 6, r->time_ns * 1e-9);
        sqlite3_bind_double(st, 7, r->max_ns * 1e-9);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)r->volume);
        rc |= rundb_step(st) != 0;
    }
    sqlite3_finalize(st);
    free(ids);
    return rc ? -1 : 0;
}

int prof_db_write(const struct profile_set *set, const char *dir, double wall,
                  const struct prof_sites_blob *sites, char *err, size_t errlen)
{
    struct rundb run;
    if (rundb_begin(&run, dir, err, errlen) != 0)
        return -1;
    int failed = rundb_exec(run.db, profile_schema, err, errlen) != 0 ||
                 write_metadata(run.db, set, wall) != 0 || write_tables(run.db, set) != 0 ||
                 (sites && prof_sites_write(run.db, sites) != 0);
    return rundb_finish(&run, failed, "the profile", err, errlen);
}
