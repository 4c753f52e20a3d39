/* SPDX-License-Identifier: BSD-3-Clause */
/* site_pg.c: the site store in PostgreSQL through libpq (site_backend.h). A reading
 * connection sets default_transaction_read_only, so no statement it runs can change the
 * store whatever the role may do; the row-level policies of site_schema.c decide which
 * rows it sees, and it searches pg_catalog first (as site_schema.h's SITE_DEFINER_PATH
 * does). Without libpq at build time, opening says how to get it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_backend.h"

#ifdef MPILENS_HAVE_LIBPQ
#include <libpq-fe.h>

static int say(PGconn *db, char *err, size_t n)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", PQerrorMessage(db));
    for (char *c = msg; *c; c++) /* one line */
        if (*c == '\n')
            *c = c[1] ? ' ' : 0;
    snprintf(err, n, "%s", msg);
    return -1;
}

static int result_failed(PGconn *db, PGresult *r, char *err, size_t n)
{
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return 0;
    say(db, err, n);
    PQclear(r);
    return -1;
}

static int pg_exec(void *db, const char *sql, char *err, size_t n)
{
    PGresult *r = PQexec(db, sql);
    if (result_failed(db, r, err, n))
        return -1;
    PQclear(r);
    return 0;
}

static int pg_run(void *db, const char *sql, int nparam, const char *const *params, long *changed,
                  char *err, size_t n)
{
    PGresult *r = PQexecParams(db, sql, nparam, NULL, params, NULL, NULL, 0);
    if (result_failed(db, r, err, n))
        return -1;
    const char *count = PQcmdTuples(r);
    *changed = count && *count ? atol(count) : 0;
    PQclear(r);
    return 0;
}

static int pg_query(void *db, const char *sql, int nparam, const char *const *params,
                    site_row_fn row, void *arg, char *err, size_t n)
{
    PGresult *r = PQexecParams(db, sql, nparam, NULL, params, NULL, NULL, 0);
    if (result_failed(db, r, err, n))
        return -1;
    int rows = PQntuples(r), ncol = PQnfields(r);
    const char *values[64];
    if (ncol > 64)
        ncol = 64;
    for (int i = 0; i < rows; i++) {
        for (int c = 0; c < ncol; c++)
            values[c] = PQgetisnull(r, i, c) ? NULL : PQgetvalue(r, i, c);
        if (row(arg, ncol, values))
            break;
    }
    PQclear(r);
    return 0;
}

static void pg_close(void *db)
{
    PQfinish(db);
}

static const struct site_backend pg_backend = {pg_exec, pg_run, pg_query, pg_close};

int site_pg_open(const char *uri, enum site_open_mode mode, struct site_store *s, char *err,
                 size_t n)
{
    /* the name for messages: the URI without a password */
    snprintf(s->name, sizeof s->name, "%s", uri);
    char *at = strchr(s->name, '@'), *colon = strchr(s->name + 13, ':');
    if (at && colon && colon < at)
        memmove(colon, at, strlen(at) + 1);
    PGconn *db = PQconnectdb(uri);
    if (PQstatus(db) != CONNECTION_OK) {
        char why[400];
        say(db, why, sizeof why);
        snprintf(err, n, "%s: cannot reach the store: %s", s->name, why);
        PQfinish(db);
        return -1;
    }
    char e[256];
    /* a reading connection: built-in functions and operators before anything a user created
     * in the store's schema (the store's owner and staff ask the questions too); the tables
     * from that schema. (A writing one keeps the default: new tables go to the schema.) */
    if (pg_exec(db, "SET client_min_messages = warning", e, sizeof e) ||
        (mode == SITE_READ &&
         pg_exec(db,
                 "SELECT pg_catalog.set_config('search_path', 'pg_catalog, ' || "
                 "pg_catalog.quote_ident(COALESCE(pg_catalog.current_schema(), 'public')) || "
                 "', pg_temp', false)",
                 e, sizeof e)) ||
        (mode == SITE_READ && pg_exec(db, "SET default_transaction_read_only = on", e, sizeof e))) {
        snprintf(err, n, "%s: %s", s->name, e);
        PQfinish(db);
        return -1;
    }
    s->ops = &pg_backend;
    s->db = db;
    snprintf(s->role, sizeof s->role, "%s", PQuser(db));
    return 0;
}

#else

int site_pg_open(const char *uri, enum site_open_mode mode, struct site_store *s, char *err,
                 size_t n)
{
    (void)mode;
    (void)s;
    snprintf(err, n,
             "%s: this mpilens was built without libpq; apt-get install libpq-dev and rebuild "
             "(or give a SQLite file as the store)",
             uri);
    return -1;
}

#endif
