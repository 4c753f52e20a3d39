/* SPDX-License-Identifier: BSD-3-Clause */
/* site_schema.h: the site store's tables, and on PostgreSQL its roles and row policies.
 * src/site alone knows them (docs/site.md describes them for readers).
 */
#ifndef SITE_SCHEMA_H
#define SITE_SCHEMA_H

#include "site_store.h"

/* The search path of every SECURITY DEFINER function of the store: pg_catalog first, the
 * temporary schema last, and nothing a user can create in (the functions name their tables
 * with their schema). tests/site/test_spool_attacks.sh checks every such function. */
#define SITE_DEFINER_PATH "pg_catalog, pg_temp"

/* 2: usage_totals (site_totals.h) */
#define SITE_STORE_VERSION 2

/* Makes the tables (idempotent). On PostgreSQL also the roles mpilens_ingest (may only
 * insert, and add a login role for a user it stores for the first time) and mpilens_staff
 * (reads every user's rows), the policies that show everyone else only their own rows,
 * LOGIN roles for INGESTERS (members of mpilens_ingest) and STAFF (of mpilens_staff).
 * 0, or -1 with ERR. */
int site_schema_init(struct site_store *s, const char *const *ingesters, int n_ingesters,
                     const char *const *staff, int n_staff, char *err, size_t n);
/* 0 when the store holds a schema this mpilens reads, else -1 with ERR naming the fix. */
int site_schema_check(struct site_store *s, char *err, size_t n);

#endif
