/* SPDX-License-Identifier: BSD-3-Clause */
/* site_scaling.c: one application's columns of the scaling table from the store's jobs
 * (site_scaling.h). A job's useful time summed over its ranks is its parallel efficiency x
 * its length x its ranks (the summary's efficiencies are those of docs/efficiency.md).
 * Each column takes the median of its group, metric by metric, so the products of the
 * medians need not equal the median of the products exactly.
 */
#include "site_scaling.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
    int ranks;
    double run, useful, load_balance, communication, parallel;
};

struct jobs {
    struct job *all;
    long n, cap;
    int failed;
};

static int add_job(void *arg, int ncol, const char *const *v)
{
    struct jobs *j = arg;
    (void)ncol;
    if (j->n == j->cap) {
        long cap = j->cap ? 2 * j->cap : 64;
        struct job *grown = realloc(j->all, (size_t)cap * sizeof *grown);
        if (!grown) {
            j->failed = 1;
            return 1;
        }
        j->all = grown;
        j->cap = cap;
    }
    struct job *b = &j->all[j->n++];
    b->ranks = atoi(v[0] ? v[0] : "0");
    b->run = v[1] ? atof(v[1]) : 0;
    b->load_balance = v[2] ? atof(v[2]) : 0;
    b->communication = v[3] ? atof(v[3]) : 0;
    b->parallel = v[4] ? atof(v[4]) : 0;
    b->useful = b->parallel * b->run * b->ranks;
    return 0;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the FIELD of JOBS[0..N) (the mean of the middle two for an even N). */
static double median(const struct job *jobs, long n, size_t field, double *scratch)
{
    for (long i = 0; i < n; i++)
        scratch[i] = *(const double *)((const char *)&jobs[i] + field);
    qsort(scratch, (size_t)n, sizeof *scratch, by_double);
    return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

int site_scaling_points(struct site_store *s, const struct site_filter *f,
                        struct pop_point **points, int *n, long *read, char *err, size_t errlen)
{
    char sql[2048];
    struct site_where w;
    *points = NULL;
    *n = 0;
    *read = 0;
    site_where(f, &w);
    snprintf(sql, sizeof sql,
             "SELECT j.ranks, j.run_seconds, j.load_balance, j.comm_efficiency, "
             "j.parallel_efficiency FROM jobs j%s AND j.ended = 'MPI_Finalize' AND "
             "j.parallel_efficiency IS NOT NULL AND j.run_seconds > 0 ORDER BY j.ranks",
             w.sql);
    struct jobs jobs = {NULL, 0, 0, 0};
    if (site_query(s, sql, w.n, w.params, add_job, &jobs, err, errlen) != 0 || jobs.failed) {
        if (jobs.failed)
            snprintf(err, errlen, "out of memory");
        free(jobs.all);
        return -1;
    }
    *read = jobs.n;
    double *scratch = malloc((size_t)(jobs.n ? jobs.n : 1) * sizeof *scratch);
    struct pop_point *out = calloc((size_t)(jobs.n ? jobs.n : 1), sizeof *out);
    if (!scratch || !out) {
        free(scratch);
        free(out);
        free(jobs.all);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int columns = 0;
    for (long from = 0, to; from < jobs.n; from = to) {
        for (to = from; to < jobs.n && jobs.all[to].ranks == jobs.all[from].ranks;)
            to++;
        const struct job *g = &jobs.all[from];
        long count = to - from;
        struct pop_point *c = &out[columns++];
        c->ranks = g->ranks;
        c->jobs = (int)count;
        c->run = median(g, count, offsetof(struct job, run), scratch);
        c->sum_useful = median(g, count, offsetof(struct job, useful), scratch);
        c->load_balance = median(g, count, offsetof(struct job, load_balance), scratch);
        c->communication = median(g, count, offsetof(struct job, communication), scratch);
        c->parallel = median(g, count, offsetof(struct job, parallel), scratch);
        c->parallel_low = scratch[0]; /* median() sorted the last field it read */
        c->parallel_high = scratch[count - 1];
        c->serialization = c->transfer = -1; /* the records carry no replay */
        snprintf(c->source, sizeof c->source, "%ld job%s of %s on %d ranks", count,
                 count == 1 ? "" : "s", f->app, c->ranks);
    }
    free(scratch);
    free(jobs.all);
    *points = out;
    *n = columns;
    return 0;
}
