/* SPDX-License-Identifier: BSD-3-Clause */
/* site_store.h: the site store's connection, whichever database holds it: a SQLite file
 * (the default, nothing to install) or PostgreSQL through libpq (`postgresql://...`, the
 * store a site shares between its login nodes). Statements are written once, with $1..$N
 * parameters, and run on either; every value travels and returns as text.
 */
#ifndef SITE_STORE_H
#define SITE_STORE_H

#include <stddef.h>

struct site_store;

enum site_open_mode { SITE_READ, SITE_WRITE, SITE_CREATE };

/* Opens STORE (a path, or a postgresql:// URI). READ: a query can never change it (a
 * read-only connection and transaction). 0 with *out, or -1 with ERR (one line naming the
 * store and the fix). */
int site_open(const char *store, enum site_open_mode mode, struct site_store **out, char *err,
              size_t n);
void site_close(struct site_store *s);
/* 1 for PostgreSQL, 0 for SQLite. */
int site_is_pg(const struct site_store *s);
/* The store as given (a URI without its password), for messages. */
const char *site_name(const struct site_store *s);
/* The role the connection reads as (PostgreSQL), or the Unix user (SQLite). */
const char *site_role(const struct site_store *s);

/* Runs SQL (one or more statements, no parameters). 0, or -1 with ERR. */
int site_exec(struct site_store *s, const char *sql, char *err, size_t n);
/* Runs SQL with NPARAM text parameters (NULL for SQL NULL); *CHANGED: rows it changed.
 * 0, or -1 with ERR. */
int site_run(struct site_store *s, const char *sql, int nparam, const char *const *params,
             long *changed, char *err, size_t n);
/* Runs a query; ROW is called with each row's NCOL values (NULL for SQL NULL) and stops the
 * query by returning non-zero. 0, or -1 with ERR. */
typedef int (*site_row_fn)(void *arg, int ncol, const char *const *values);
int site_query(struct site_store *s, const char *sql, int nparam, const char *const *params,
               site_row_fn row, void *arg, char *err, size_t n);
/* The first value of a query's first row as text into OUT (LEN bytes; "" for none or
 * NULL). 0, or -1 with ERR. */
int site_query_text(struct site_store *s, const char *sql, int nparam, const char *const *params,
                    char *out, size_t len, char *err, size_t n);

#endif
