/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb_detail.c: where a run keeps the profile's per-rank rows (rundb_read.h).
 *
 * Up to a size (module argument `profile:detail=`, docs/scaling.md) every rank's rows are
 * in mpilens.db itself, as mpisee writes them. Beyond it mpilens.db holds the profile
 * reduced over ranks (profile_summary, callsite_summary) and each block of ranks has its
 * own database, written by the block's first rank at the same time as the others:
 * DIR/profile-detail/ranks-FIRST.db, a complete profile database of those ranks (shared
 * tables, profile, call sites). The readers open the shard of the rank asked for.
 */
#include "rundb_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundb.h"

static char detail_error[4600];

const char *rundb_detail_error(void)
{
    return detail_error[0] ? detail_error : NULL;
}

void rundb_detail_error_clear(void)
{
    detail_error[0] = '\0';
}

void rundb_shard_file(int rank, int shard_ranks, char *out, size_t len)
{
    int first = shard_ranks > 0 ? rank - rank % shard_ranks : 0;
    snprintf(out, len, "%s/ranks-%06d.db", RUNDB_DETAIL_DIR, first);
}

enum rundb_detail rundb_detail_kind(sqlite3 *db, int *shard_ranks)
{
    char text[64] = "", ranks[32] = "";
    rundb_metadata_get(db, "Profile detail", text, sizeof text);
    rundb_metadata_get(db, "Profile shard ranks", ranks, sizeof ranks);
    if (shard_ranks)
        *shard_ranks = atoi(ranks);
    if (strcmp(text, "shards") == 0 && atoi(ranks) > 0)
        return RUNDB_DETAIL_SHARDS;
    return strcmp(text, "summary") == 0 ? RUNDB_DETAIL_SUMMARY : RUNDB_DETAIL_RANKS;
}

/* A shard names a communicator whose root is in another shard by its identity (root,
 * ordinal, members hash): the run's names come from RUN's table, through a temporary table
 * that hides the shard's own (unqualified names find temp's tables first); the run's
 * volume per communicator (what a report is ordered by) into temp.run_volumes. */
static int name_communicators(sqlite3 *shard, sqlite3 *run, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(shard, "ATTACH DATABASE ?1 AS run", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, rundb_path(run), -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK ||
        rundb_exec(shard,
                   "CREATE TEMP TABLE communicators AS SELECT d.id, COALESCE(r.name, d.name) AS "
                   "name, d.size, d.creator, d.members, d.root, d.ordinal, d.members_hash FROM "
                   "main.communicators d LEFT JOIN run.communicators r ON r.root = d.root AND "
                   "r.ordinal = d.ordinal AND r.members_hash = d.members_hash;"
                   "CREATE TEMP TABLE run_volumes AS SELECT d.id AS comm_id, (SELECT "
                   "SUM(s.volume) FROM run.profile_summary s WHERE s.comm_id = r.id) AS volume "
                   "FROM main.communicators d JOIN run.communicators r ON r.root = d.root AND "
                   "r.ordinal = d.ordinal AND r.members_hash = d.members_hash;"
                   "DETACH DATABASE run;",
                   err, errlen) != 0) {
        if (rc != SQLITE_OK)
            snprintf(err, errlen, "%s: %s", rundb_path(shard), sqlite3_errmsg(shard));
        return -1;
    }
    return 0;
}

int rundb_detail_open(sqlite3 *db, int rank, sqlite3 **out, char *err, size_t errlen)
{
    int shard_ranks = 0;
    *out = db;
    switch (rundb_detail_kind(db, &shard_ranks)) {
    case RUNDB_DETAIL_RANKS:
        return 0;
    case RUNDB_DETAIL_SUMMARY:
        snprintf(err, errlen,
                 "%s: the run kept the profile reduced over ranks only "
                 "(profile:detail=summary), not rank %d's own rows; rerun with "
                 "-m profile:detail=shards to keep them",
                 rundb_path(db), rank);
        return -1;
    case RUNDB_DETAIL_SHARDS:
        break;
    }
    char dir[4096], file[256], path[4400];
    snprintf(dir, sizeof dir, "%s", rundb_path(db));
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    rundb_shard_file(rank, shard_ranks, file, sizeof file);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char why[4600];
    if (rundb_open_read(path, out, why, sizeof why) != 0 ||
        name_communicators(*out, db, why, sizeof why) != 0) {
        rundb_close(*out);
        *out = NULL;
        snprintf(err, errlen,
                 "%s (rank %d's rows are kept there); `mpilens recover %s` rewrites it if "
                 "the run's snapshots are still in %s/partial",
                 why, rank, dir, dir);
        return -1;
    }
    return 0;
}

int rundb_detail_use(sqlite3 *db, int rank, sqlite3 **out)
{
    detail_error[0] = '\0';
    if (rank < 0) {
        *out = db;
        return 0;
    }
    return rundb_detail_open(db, rank, out, detail_error, sizeof detail_error);
}

void rundb_detail_done(sqlite3 *db, sqlite3 *detail)
{
    if (detail && detail != db)
        rundb_close(detail);
}

int rundb_profile_summarized(sqlite3 *db)
{
    return !rundb_table_has_rows(db, "profile") && rundb_table_has_rows(db, "profile_summary");
}

int rundb_profile_has_rows(sqlite3 *db)
{
    return rundb_table_has_rows(db, "profile") || rundb_table_has_rows(db, "profile_summary");
}
