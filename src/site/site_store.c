/* SPDX-License-Identifier: BSD-3-Clause */
/* site_store.c: the site store's connection (site_store.h): PostgreSQL for a
 * postgresql:// or postgres:// URI, SQLite for anything else (a file path).
 */
#include "site_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_backend.h"

int site_open(const char *store, enum site_open_mode mode, struct site_store **out, char *err,
              size_t n)
{
    struct site_store *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    int pg = strncmp(store, "postgresql:", 11) == 0 || strncmp(store, "postgres:", 9) == 0;
    int rc = pg ? site_pg_open(store, mode, s, err, n) : site_sqlite_open(store, mode, s, err, n);
    if (rc) {
        free(s);
        return -1;
    }
    s->pg = pg;
    *out = s;
    return 0;
}

void site_close(struct site_store *s)
{
    if (!s)
        return;
    s->ops->close(s->db);
    free(s);
}

int site_is_pg(const struct site_store *s)
{
    return s->pg;
}

const char *site_name(const struct site_store *s)
{
    return s->name;
}

const char *site_role(const struct site_store *s)
{
    return s->role;
}

int site_exec(struct site_store *s, const char *sql, char *err, size_t n)
{
    return s->ops->exec(s->db, sql, err, n);
}

int site_run(struct site_store *s, const char *sql, int nparam, const char *const *params,
             long *changed, char *err, size_t n)
{
    long dummy;
    return s->ops->run(s->db, sql, nparam, params, changed ? changed : &dummy, err, n);
}

int site_query(struct site_store *s, const char *sql, int nparam, const char *const *params,
               site_row_fn row, void *arg, char *err, size_t n)
{
    return s->ops->query(s->db, sql, nparam, params, row, arg, err, n);
}

struct text_out {
    char *out;
    size_t len;
};

static int first_value(void *arg, int ncol, const char *const *values)
{
    struct text_out *t = arg;
    snprintf(t->out, t->len, "%s", ncol > 0 && values[0] ? values[0] : "");
    return 1;
}

int site_query_text(struct site_store *s, const char *sql, int nparam, const char *const *params,
                    char *out, size_t len, char *err, size_t n)
{
    struct text_out got = {out, len};
    if (len)
        out[0] = 0;
    return site_query(s, sql, nparam, params, first_value, &got, err, n);
}
