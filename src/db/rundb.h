/* SPDX-License-Identifier: BSD-3-Clause */
/* rundb.h: the run database (DIR/mpilens.db) that every module writes into and every
 * CLI verb reads. Schema in docs/database.md, versioned with PRAGMA user_version.
 */
#ifndef LENS_RUNDB_H
#define LENS_RUNDB_H

#include <sqlite3.h>
#include <stddef.h>

#define RUNDB_SCHEMA_VERSION 2
#define RUNDB_FILE "mpilens.db"

#define RUNDB_STMTS 32
struct rundb {
    sqlite3 *db;
    char path[4096];      /* DIR/mpilens.db */
    char temp_path[4096]; /* where it is written; renamed to path at commit ("" if in place) */
    sqlite3_stmt *stmts[RUNDB_STMTS]; /* the writers' statements (rundb_write.c), prepared
                                       * once per transaction */
};

/* Opens the run database of dir for writing, in one transaction: a new file is written
 * under a temporary name, an existing one (another module's) in place. The shared tables
 * exist afterwards. 0, or -1 with a message in err. */
int rundb_begin(struct rundb *run, const char *dir, char *err, size_t errlen);
/* The same for DIR/FILE (FILE may name a subdirectory of DIR that exists): the profile's
 * per-rank detail shards (docs/database.md). */
int rundb_begin_file(struct rundb *run, const char *dir, const char *file, char *err,
                     size_t errlen);
/* Commits and moves the file into place. 0, or -1 with a message in err. */
int rundb_commit(struct rundb *run, char *err, size_t errlen);
/* Ends a writer's transaction: committed (rundb_commit) unless FAILED, else rolled back
 * with ERR "PATH: writing WHAT failed: the first failure's text" (unless ERR says why
 * already). 0, or -1. */
int rundb_finish(struct rundb *run, int failed, const char *what, char *err, size_t errlen);
/* Rolls back and removes a temporary file. */
void rundb_abort(struct rundb *run);
/* The monitor's tables (monitor_phases, _matrix, _histogram, _collectives, _io): written by
 * the monitor module, and by `mpilens run --ompi-monitoring` for the library's own matrix. */
extern const char rundb_monitor_schema[];

/* Runs SQL without results; 0 or -1 with err (SQLite's text, and the system's when a
 * file operation failed: "database or disk is full (No space left on device)"). */
int rundb_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);

/* Writers' statements: prepared, stepped and reset through these, the first failure of a
 * write keeps its own text (read after a reset or finalize, SQLite's would say "not an
 * error"). Same arguments as sqlite3_prepare_v2; SQLITE_OK or SQLite's code. */
int rundb_prepare(sqlite3 *db, const char *sql, int nbyte, sqlite3_stmt **st, const char **tail);
/* Steps ST (NULL: a statement that failed to prepare) and resets it: 0 when it ran. */
int rundb_step(sqlite3_stmt *st);
/* The first failure since rundb_begin (or the last take) into ERR, cleared; 0 if none. */
int rundb_failure_take(char *err, size_t errlen);

/* Records in the database at PATH that the run is incomplete because of how its ranks
 * ended (metadata `Incomplete` = ENDINGS, replacing an earlier such text) and its size
 * (`Processes`). 0, or -1 with err. */
int rundb_mark_ended(const char *path, const char *endings, int processes, char *err,
                     size_t errlen);
/* Adds WHY to the metadata `Incomplete` of the database at PATH (after what it says
 * already, "; "-separated): a write of the run failed. 0, or -1 with err. */
int rundb_note_incomplete(const char *path, const char *why, char *err, size_t errlen);

/* Opens path read-only and checks it is an mpilens database. 0, or -1 with a one-line
 * message in err naming the file and what to do. */
int rundb_open_read(const char *path, sqlite3 **db, char *err, size_t errlen);

/* 1 if the database has a table or view of that name. */
int rundb_has_table(sqlite3 *db, const char *name);
/* The first column of SQL's first row as an integer, or OTHERWISE. */
int rundb_one_int(sqlite3 *db, const char *sql, int otherwise);
/* SQL prepared with its parameters ?1, ?2, ... bound in order from the arguments, one
 * letter of TYPES each: 'i' an int, 't' a text (NULL binds NULL, as an unbound
 * parameter). NULL when SQL cannot be prepared (sqlite3_errmsg says why). */
sqlite3_stmt *rundb_query(sqlite3 *db, const char *sql, const char *types, ...);
/* Finalizes a statement of rundb_query: 0, or -1 when it could not be prepared (NULL). */
int rundb_query_end(sqlite3_stmt *st);
/* One number from SQL with ?1 = TEXT (unless NULL) and ?2 = RANK bound; 0 when none. */
double rundb_one_number(sqlite3 *db, const char *sql, const char *text, int rank);
/* 1 if SQL (one parameter, ?1 = TEXT) gives a row. */
int rundb_any_row(sqlite3 *db, const char *sql, const char *text);

#endif
