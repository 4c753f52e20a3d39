/* SPDX-License-Identifier: BSD-3-Clause */
/* site_backend.h: what each database behind the site store provides (site_sqlite.c,
 * site_pg.c); site_store.c picks one from the store's name.
 */
#ifndef SITE_BACKEND_H
#define SITE_BACKEND_H

#include "site_store.h"

struct site_backend {
    int (*exec)(void *db, const char *sql, char *err, size_t n);
    int (*run)(void *db, const char *sql, int nparam, const char *const *params, long *changed,
               char *err, size_t n);
    int (*query)(void *db, const char *sql, int nparam, const char *const *params, site_row_fn row,
                 void *arg, char *err, size_t n);
    void (*close)(void *db);
};

struct site_store {
    const struct site_backend *ops;
    void *db;
    int pg;
    char name[512], role[128];
};

int site_sqlite_open(const char *path, enum site_open_mode mode, struct site_store *s, char *err,
                     size_t n);
int site_pg_open(const char *uri, enum site_open_mode mode, struct site_store *s, char *err,
                 size_t n);

#endif
