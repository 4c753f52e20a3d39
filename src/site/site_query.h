/* SPDX-License-Identifier: BSD-3-Clause */
/* site_query.h: the questions `mpilens site` answers over the store's jobs, each as a
 * table (site_table.h): the jobs, the applications, the site's MPI usage. Filters narrow
 * every question to a user, an account, an application and a time window (by start).
 */
#ifndef SITE_QUERY_H
#define SITE_QUERY_H

#include "site_store.h"
#include "site_table.h"

struct site_filter {
    const char *user, *account, *app;
    double since, until; /* epoch seconds; 0: open */
};

/* F as " WHERE ..." on the jobs table aliased j (SQL), with its N parameters ($1..$N). */
struct site_where {
    char sql[1024], since[32], until[32];
    const char *params[8];
    int n;
};
void site_where(const struct site_filter *f, struct site_where *w);

enum site_job_order { SITE_BY_MPI_CORE_HOURS, SITE_BY_EFFICIENCY, SITE_BY_LENGTH, SITE_BY_START };

/* The jobs, at most LIMIT (0: all) in ORDER. *READ: how many jobs the filter matched. */
int site_query_jobs(struct site_store *s, const struct site_filter *f, enum site_job_order order,
                    long limit, struct site_table *t, long *read, char *err, size_t n);
/* Per application: jobs, core-hours, their MPI share, median and worst parallel efficiency,
 * the worst job; by core-hours, at most LIMIT. */
int site_query_apps(struct site_store *s, const struct site_filter *f, long limit,
                    struct site_table *t, long *read, char *err, size_t n);
/* The site's MPI usage as rows (section, item, value, share): operations by share of MPI
 * core-hours, point-to-point against collectives, message sizes, communicator sizes, ranks
 * and nodes per job. */
int site_query_usage(struct site_store *s, const struct site_filter *f, struct site_table *t,
                     long *read, char *err, size_t n);

enum site_period { SITE_BY_DAY, SITE_BY_WEEK, SITE_BY_MONTH };

/* F's application (F->app, required) over time: per period (UTC days, weeks from Monday,
 * months) its jobs, parallel efficiency and MPI share (median, lowest, highest), each
 * judged against the period before as `mpilens diff` judges runs (src/common/noise_judge.c:
 * changed beyond the noise, within it, or not judged with one job on a side). */
int site_query_trend(struct site_store *s, const struct site_filter *f, enum site_period by,
                     struct site_table *t, long *read, char *err, size_t n);

/* The start (epoch seconds, a Monday 00:00 UTC) of the last WEEKS weeks of F's jobs, the
 * week of the latest one included; F's own --since when later. */
int site_query_recent(struct site_store *s, const struct site_filter *f, int weeks, double *since,
                      char *err, size_t n);

#endif
