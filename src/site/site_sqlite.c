/* SPDX-License-Identifier: BSD-3-Clause */
/* site_sqlite.c: the site store in a SQLite file (site_backend.h). Reading opens the file
 * read-only with query_only set, so no statement can change it; writing waits up to 30 s
 * for another writer. Parameters $1..$N become ?1..?N.
 */
#include <errno.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "site_backend.h"

static int say(sqlite3 *db, char *err, size_t n)
{
    snprintf(err, n, "%s", sqlite3_errmsg(db));
    return -1;
}

static int lite_exec(void *db, const char *sql, char *err, size_t n)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, n, "%s", msg ? msg : "failed");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* SQL with PostgreSQL's $N parameters for SQLite (outside quoted text). SQLite keeps a
 * list of numbered and named parameters, searched at each one: the square of their number
 * at a statement of thousands of rows. When the parameters appear as $1, $2, ... in order,
 * each once (the inserts), they become plain ?, which SQLite numbers as they come without
 * the list; otherwise ?N. Malloc'ed. */
static char *numbered(const char *sql)
{
    size_t len = strlen(sql);
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    int quoted = 0, in_order = 1, next = 1;
    for (const char *c = sql; *c; c++) {
        if (*c == '\'')
            quoted = !quoted;
        else if (!quoted && *c == '$' && c[1] >= '0' && c[1] <= '9')
            in_order &= atoi(c + 1) == next++;
    }
    char *o = out;
    quoted = 0;
    for (const char *c = sql; *c; c++) {
        if (*c == '\'')
            quoted = !quoted;
        if (!quoted && *c == '$' && c[1] >= '0' && c[1] <= '9') {
            *o++ = '?';
            if (in_order)
                while (c[1] >= '0' && c[1] <= '9')
                    c++;
            continue;
        }
        *o++ = *c;
    }
    *o = 0;
    return out;
}

static int prepare(sqlite3 *db, const char *sql, int nparam, const char *const *params,
                   sqlite3_stmt **st, char *err, size_t n)
{
    char *text = numbered(sql);
    int rc = text ? sqlite3_prepare_v2(db, text, -1, st, NULL) : SQLITE_NOMEM;
    free(text);
    if (rc != SQLITE_OK)
        return say(db, err, n);
    int count = sqlite3_bind_parameter_count(*st);
    for (int i = 0; i < nparam && i < count; i++) {
        rc = params[i] ? sqlite3_bind_text(*st, i + 1, params[i], -1, SQLITE_TRANSIENT)
                       : sqlite3_bind_null(*st, i + 1);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(*st);
            return say(db, err, n);
        }
    }
    return 0;
}

static int lite_run(void *db, const char *sql, int nparam, const char *const *params, long *changed,
                    char *err, size_t n)
{
    sqlite3_stmt *st;
    if (prepare(db, sql, nparam, params, &st, err, n))
        return -1;
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return say(db, err, n);
    *changed = sqlite3_changes(db);
    return 0;
}

static int lite_query(void *db, const char *sql, int nparam, const char *const *params,
                      site_row_fn row, void *arg, char *err, size_t n)
{
    sqlite3_stmt *st;
    if (prepare(db, sql, nparam, params, &st, err, n))
        return -1;
    int ncol = sqlite3_column_count(st), rc;
    const char *values[64];
    if (ncol > 64)
        ncol = 64;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < ncol; i++)
            values[i] = (const char *)sqlite3_column_text(st, i);
        if (row(arg, ncol, values))
            break;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return say(db, err, n);
    return 0;
}

static void lite_close(void *db)
{
    sqlite3_close(db);
}

static const struct site_backend sqlite_backend = {lite_exec, lite_run, lite_query, lite_close};

int site_sqlite_open(const char *path, enum site_open_mode mode, struct site_store *s, char *err,
                     size_t n)
{
    struct stat st;
    if (mode != SITE_CREATE && stat(path, &st) != 0) {
        snprintf(err, n, "%s: no such store (make it with mpilens site init --store %s)", path,
                 path);
        return -1;
    }
    if (mode == SITE_CREATE && stat(path, &st) != 0) {
        /* a new store readable by its owner and group only: the file's permissions decide
         * who reads a SQLite store */
        mode_t old = umask(027);
        FILE *f = fopen(path, "a");
        umask(old);
        if (!f) {
            snprintf(err, n, "%s: cannot create the store: %s", path, strerror(errno));
            return -1;
        }
        fclose(f);
    }
    int flags = mode == SITE_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        snprintf(err, n, "%s: cannot open the store: %s", path, db ? sqlite3_errmsg(db) : "");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 30000);
    char e[256];
    if (lite_exec(db, mode == SITE_READ ? "PRAGMA query_only = 1" : "SELECT 1", e, sizeof e) ||
        lite_exec(db, "SELECT COUNT(*) FROM sqlite_master", e, sizeof e)) {
        snprintf(err, n, "%s: not a store mpilens can read: %s", path, e);
        sqlite3_close(db);
        return -1;
    }
    s->ops = &sqlite_backend;
    s->db = db;
    snprintf(s->name, sizeof s->name, "%s", path);
    struct passwd *pw = getpwuid(geteuid());
    snprintf(s->role, sizeof s->role, "%s", pw ? pw->pw_name : "?");
    return 0;
}
