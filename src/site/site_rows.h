/* SPDX-License-Identifier: BSD-3-Clause */
/* site_rows.h: a summary record's rows in the site store's five tables (jobs, operations,
 * top operations, message sizes, call sites), gathered into one multi-row insert per table
 * for a batch; a job step already stored adds nothing (ON CONFLICT DO NOTHING on every
 * table's key, which holds the record's key). site_ingest.c runs the batches.
 */
#ifndef SITE_ROWS_H
#define SITE_ROWS_H

#include "site_store.h"
#include "summary_record.h"

#define SITE_ROWS_MAX_PARAMS 30000 /* per statement: SQLite allows 32766, PostgreSQL 65535 */

/* A multi-row insert being built: SQL text with $N parameters, their values as text. */
struct insert {
    char *sql;
    size_t len, cap;
    char *values[SITE_ROWS_MAX_PARAMS];
    int nvalues, ncols, nrows;
    char head[640];
    long changed; /* rows inserted by the statements run so far */
};

/* The five tables' inserts of a batch: a record adds its rows to each, and each runs when
 * full and at the batch's end. A job step already stored adds nothing: every table's key
 * holds the record's key (ON CONFLICT DO NOTHING). */
enum { T_JOBS, T_OPS, T_TOP, T_BINS, T_SITES, N_TABLES };

void site_rows_init(struct insert *t);
/* Runs what the tables hold (t[T_JOBS].changed: the jobs inserted so far). 0, or -1. */
int site_rows_run(struct site_store *s, struct insert *t, char *err, size_t n);
/* Drops what the tables hold and their counts (after a commit or a rollback). */
void site_rows_forget(struct insert *t);
void site_rows_free(struct insert *t);
/* Adds record R's rows (running a statement that is full). 0, or -1 with ERR. */
int site_rows_add(struct site_store *s, struct insert *t, const struct summary_record *r, char *err,
                  size_t n);

#endif
