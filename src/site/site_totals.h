/* SPDX-License-Identifier: BSD-3-Clause */
/* site_totals.h: the site's usage kept as running totals per user (table usage_totals), so
 * that `site usage`, `site apps` and the page, over every job or one user's, read a few
 * hundred rows instead of every job's. The database itself keeps them: a trigger on each
 * row table adds what an insert stored (on PostgreSQL a statement trigger that runs as the
 * store's owner, so ingest still only inserts rows); a job step already stored adds
 * nothing. Questions filtered by account, application or time read the rows.
 */
#ifndef SITE_TOTALS_H
#define SITE_TOTALS_H

#include "site_store.h"

struct site_filter;

/* Makes usage_totals' triggers (idempotent); with REFILL, also sums every stored row into
 * it afresh (a store made by an mpilens before the totals). Inside site init's
 * transaction. 0, or -1 with ERR. */
int site_totals_install(struct site_store *s, int refill, char *err, size_t n);

/* 1 when F's question can be answered from the totals (no filter but the user). */
int site_totals_answer(const struct site_filter *f);

/* " FROM usage_totals WHERE section = 'SECTION'" and, with F's user, " AND owner = $1". */
void site_totals_from(const struct site_filter *f, const char *section, char *out, size_t n);

#endif
