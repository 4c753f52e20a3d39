/* SPDX-License-Identifier: BSD-3-Clause */
/* site_query.c: the questions of site_query.h as SQL over the store's tables (site_schema.c)
 * and a little arithmetic in C (medians, bins, operation kinds), the same on SQLite and
 * PostgreSQL. Core-hours are ranks x the run's length; MPI core-hours the time in MPI
 * summed over ranks (docs/site.md).
 */
#include "site_query.h"

#include "noise_judge.h"
#include "site_totals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void site_where(const struct site_filter *f, struct site_where *w)
{
    size_t len = sizeof w->sql, at;
    w->n = 0;
    snprintf(w->sql, len, " WHERE 1 = 1");
    at = strlen(w->sql);
    if (f->user) {
        w->params[w->n] = f->user;
        at += (size_t)snprintf(w->sql + at, len - at, " AND j.owner = $%d", ++w->n);
    }
    if (f->account) {
        w->params[w->n] = f->account;
        at += (size_t)snprintf(w->sql + at, len - at, " AND j.account = $%d", ++w->n);
    }
    if (f->app) {
        w->params[w->n] = f->app;
        at += (size_t)snprintf(w->sql + at, len - at, " AND j.app = $%d", ++w->n);
    }
    if (f->since > 0) {
        snprintf(w->since, sizeof w->since, "%.3f", f->since);
        w->params[w->n] = w->since;
        at += (size_t)snprintf(w->sql + at, len - at,
                               " AND j.start_epoch >= CAST($%d AS DOUBLE PRECISION)", ++w->n);
    }
    if (f->until > 0) {
        snprintf(w->until, sizeof w->until, "%.3f", f->until);
        w->params[w->n] = w->until;
        snprintf(w->sql + at, len - at, " AND j.start_epoch < CAST($%d AS DOUBLE PRECISION)",
                 ++w->n);
    }
}

static double num(const char *v)
{
    return v ? atof(v) : 0;
}

static void fmt(char *out, size_t n, const char *format, double v)
{
    snprintf(out, n, format, v);
}

/* ---- jobs ---- */

static const struct site_column job_cols[] = {{"job", "JOB", -10},
                                              {"step", "STEP", -4},
                                              {"user", "USER", -8},
                                              {"app", "APP", -11},
                                              {"ranks", "RANKS", 5},
                                              {"nodes", "NODES", 5},
                                              {"start", NULL, 0},
                                              {"length_s", "LENGTH", 8},
                                              {"core_hours", "CORE-H", 8},
                                              {"mpi_core_hours", NULL, 0},
                                              {"mpi_share", "MPI%", 5},
                                              {"parallel_efficiency", "PE", 5},
                                              {"p2p_bytes", NULL, 0},
                                              {"within_hosts_bytes", NULL, 0},
                                              {"between_hosts_bytes", NULL, 0},
                                              {"ended", NULL, 0}};

struct rows {
    struct site_table *t;
    long count;
};

static int job_row(void *arg, int ncol, const char *const *v)
{
    struct rows *r = arg;
    (void)ncol;
    char start[32] = "", length[32], core[32], mpi[32], share[32], pe[32] = "";
    time_t at = (time_t)num(v[6]);
    struct tm tm;
    if (v[6] && gmtime_r(&at, &tm))
        strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fmt(length, sizeof length, "%.1f", num(v[7]));
    fmt(core, sizeof core, "%.4f", num(v[8]) / 3600);
    fmt(mpi, sizeof mpi, "%.4f", num(v[9]) / 3600);
    fmt(share, sizeof share, "%.3f", num(v[8]) > 0 ? num(v[9]) / num(v[8]) : 0);
    if (v[10])
        fmt(pe, sizeof pe, "%.3f", num(v[10]));
    const char *cells[] = {v[0], v[1], v[2],  v[3], v[4],  v[5],  start, length,
                           core, mpi,  share, pe,   v[12], v[13], v[14], v[11]};
    site_table_add(r->t, cells);
    r->count++;
    return 0;
}

static int count_row(void *arg, int ncol, const char *const *v)
{
    (void)ncol;
    *(long *)arg = atol(v[0] ? v[0] : "0");
    return 1;
}

int site_query_jobs(struct site_store *s, const struct site_filter *f, enum site_job_order order,
                    long limit, struct site_table *t, long *read, char *err, size_t n)
{
    char sql[2048];
    struct site_where w;
    site_where(f, &w);
    static const char *const orders[] = {"j.mpi_seconds DESC, j.start_epoch, j.record_key",
                                         "j.parallel_efficiency, j.start_epoch, j.record_key",
                                         "j.run_seconds DESC, j.start_epoch, j.record_key",
                                         "j.start_epoch DESC, j.record_key"};
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM jobs j%s", w.sql);
    if (site_query(s, sql, w.n, w.params, count_row, read, err, n))
        return -1;
    char lim[32] = "";
    if (limit > 0)
        snprintf(lim, sizeof lim, " LIMIT %ld", limit);
    snprintf(sql, sizeof sql,
             "SELECT j.job_id, j.step, j.owner, j.app, j.ranks, j.nodes, j.start_epoch, "
             "j.run_seconds, j.core_seconds, j.mpi_seconds, j.parallel_efficiency, j.ended, "
             "CAST(j.p2p_bytes AS BIGINT), CAST(j.within_bytes AS BIGINT), "
             "CAST(j.between_bytes AS BIGINT) "
             "FROM jobs j%s ORDER BY %s%s",
             w.sql, orders[order], lim);
    site_table_init(t, job_cols, sizeof job_cols / sizeof *job_cols);
    struct rows r = {t, 0};
    return site_query(s, sql, w.n, w.params, job_row, &r, err, n);
}

/* ---- apps ---- */

static const struct site_column app_cols[] = {{"app", "APP", -14},
                                              {"jobs", "JOBS", 6},
                                              {"core_hours", "CORE-H", 9},
                                              {"mpi_core_hours", NULL, 0},
                                              {"mpi_share", "MPI%", 5},
                                              {"median_parallel_efficiency", "MEDIAN-PE", 9},
                                              {"worst_parallel_efficiency", "WORST-PE", 8},
                                              {"worst_job", "WORST-JOB", -14}};

/* One application's sums, from the store's GROUP BY (its jobs' PE median and worst job are
 * read afterwards for the rows shown, through the index on (app, parallel_efficiency)). */
struct app_acc {
    char app[128];
    long jobs, npe;
    double core, mpi;
};

struct apps {
    struct app_acc *list;
    long count, cap;
    int failed;
};

static int app_row(void *arg, int ncol, const char *const *v)
{
    struct apps *a = arg;
    (void)ncol;
    if (a->count == a->cap) {
        long cap = a->cap ? a->cap * 2 : 32;
        struct app_acc *grown = realloc(a->list, (size_t)cap * sizeof *grown);
        if (!grown) {
            a->failed = 1;
            return 1;
        }
        a->list = grown;
        a->cap = cap;
    }
    struct app_acc *c = &a->list[a->count++];
    memset(c, 0, sizeof *c);
    snprintf(c->app, sizeof c->app, "%s", v[0] ? v[0] : "");
    c->jobs = atol(v[1] ? v[1] : "0");
    c->core = num(v[2]);
    c->mpi = num(v[3]);
    c->npe = atol(v[4] ? v[4] : "0");
    return 0;
}

static int by_core(const void *x, const void *y)
{
    const struct app_acc *a = x, *b = y;
    if (a->core != b->core)
        return a->core < b->core ? 1 : -1;
    return strcmp(a->app, b->app);
}

/* Up to two parallel efficiencies (the middle of an ordered list), summed; and the count. */
struct middle {
    double sum;
    int count;
};

static int middle_row(void *arg, int ncol, const char *const *v)
{
    struct middle *m = arg;
    (void)ncol;
    m->sum += num(v[0]);
    m->count++;
    return 0;
}

/* The worst job: its id.step and its efficiency. */
struct worst {
    char job[96], efficiency[32];
};

static int worst_row(void *arg, int ncol, const char *const *v)
{
    (void)ncol;
    struct worst *w = arg;
    snprintf(w->job, sizeof w->job, "%s%s%s", v[0] ? v[0] : "-", v[1] ? "." : "", v[1] ? v[1] : "");
    fmt(w->efficiency, sizeof w->efficiency, "%.3f", num(v[2]));
    return 1;
}

/* C's median and worst parallel efficiency and its worst job, among W's jobs. */
static int app_efficiencies(struct site_store *s, const struct site_where *w,
                            const struct app_acc *c, char median[32], char worst[32],
                            char worst_job[96], char *err, size_t n)
{
    const char *p[9];
    memcpy(p, w->params, sizeof *p * (size_t)w->n);
    p[w->n] = c->app;
    char sql[2048];
    /* the middle one (odd), or the middle two (even) */
    snprintf(sql, sizeof sql,
             "SELECT j.parallel_efficiency FROM jobs j%s AND j.app = $%d AND "
             "j.parallel_efficiency IS NOT NULL ORDER BY j.parallel_efficiency LIMIT %d OFFSET "
             "%ld",
             w->sql, w->n + 1, c->npe % 2 ? 1 : 2, (c->npe - 1) / 2);
    struct middle m = {0, 0};
    if (site_query(s, sql, w->n + 1, p, middle_row, &m, err, n))
        return -1;
    fmt(median, 32, "%.3f", m.count ? m.sum / m.count : 0);
    snprintf(sql, sizeof sql,
             "SELECT j.job_id, j.step, j.parallel_efficiency FROM jobs j%s AND j.app = $%d AND "
             "j.parallel_efficiency IS NOT NULL ORDER BY j.parallel_efficiency, j.start_epoch, "
             "j.record_key LIMIT 1",
             w->sql, w->n + 1);
    struct worst found = {"", ""};
    if (site_query(s, sql, w->n + 1, p, worst_row, &found, err, n))
        return -1;
    snprintf(worst_job, 96, "%s", found.job);
    snprintf(worst, 32, "%s", found.efficiency);
    return 0;
}

/* A question the totals can answer (site_totals.h): its SQL, a format whose %s is the FROM
 * clause, over the totals' SECTION and over the rows: of TABLE, or of the jobs (aliased j,
 * %s then being the filter's WHERE clause) when TABLE is NULL. */
struct totals_question {
    const char *section, *from_totals, *table, *from_rows;
};

static const struct totals_question by_app = {
    "app",
    "SELECT item, CAST(SUM(jobs) AS BIGINT), SUM(core_seconds), SUM(seconds), "
    "CAST(SUM(rated) AS BIGINT)%s GROUP BY item",
    NULL,
    "SELECT j.app, COUNT(*), SUM(j.core_seconds), SUM(j.mpi_seconds), "
    "COUNT(j.parallel_efficiency) FROM jobs j%s GROUP BY j.app"};
static const struct totals_question all_jobs = {
    "jobs",
    "SELECT CAST(COALESCE(SUM(jobs), 0) AS BIGINT), COALESCE(SUM(seconds), 0), "
    "COALESCE(SUM(core_seconds), 0), COALESCE(SUM(other_seconds), 0)%s",
    NULL,
    "SELECT COUNT(*), COALESCE(SUM(j.mpi_seconds), 0), COALESCE(SUM(j.core_seconds), 0), "
    "COALESCE(SUM(j.other_ops_seconds), 0) FROM jobs j%s"};
static const struct totals_question by_shape = {
    "shape", "SELECT low, high, CAST(SUM(jobs) AS BIGINT)%s GROUP BY low, high", NULL,
    "SELECT j.ranks, j.nodes, COUNT(*) FROM jobs j%s GROUP BY j.ranks, j.nodes"};
static const struct totals_question by_operation = {
    "operation", "SELECT item, SUM(seconds) AS s%s GROUP BY item ORDER BY s DESC, item",
    "job_operations",
    "SELECT c.operation, SUM(c.seconds) AS s%s GROUP BY c.operation ORDER BY s DESC, "
    "c.operation"};
static const struct totals_question by_size = {
    "message_size", "SELECT low, high, SUM(messages)%s GROUP BY low, high ORDER BY low",
    "job_message_sizes",
    "SELECT c.min_bytes, c.max_bytes, SUM(c.messages)%s GROUP BY c.min_bytes, c.max_bytes "
    "ORDER BY c.min_bytes"};
static const struct totals_question by_communicator = {
    "communicator",
    "SELECT CAST(low AS BIGINT) AS size, SUM(seconds)%s GROUP BY size ORDER BY size",
    "job_top_operations",
    "SELECT COALESCE(c.communicator_size, 0) AS size, SUM(c.seconds)%s GROUP BY size ORDER "
    "BY size"};

static void rows_of(const char *table, const struct site_filter *f, const struct site_where *w,
                    char *out, size_t n);

/* Q's SQL under F (its WHERE clause W): from the totals when they answer it, else from the
 * rows. */
static void question_sql(const struct site_filter *f, const struct site_where *w,
                         const struct totals_question *q, char *sql, size_t n)
{
    char from[1200];
    if (site_totals_answer(f)) {
        site_totals_from(f, q->section, from, sizeof from);
        snprintf(sql, n, q->from_totals, from);
    } else if (q->table) {
        rows_of(q->table, f, w, from, sizeof from);
        snprintf(sql, n, q->from_rows, from);
    } else
        snprintf(sql, n, q->from_rows, w->sql);
}

int site_query_apps(struct site_store *s, const struct site_filter *f, long limit,
                    struct site_table *t, long *read, char *err, size_t n)
{
    char sql[2048];
    struct site_where w;
    site_where(f, &w);
    question_sql(f, &w, &by_app, sql, sizeof sql);
    struct apps a = {0};
    if (site_query(s, sql, w.n, w.params, app_row, &a, err, n) || a.failed) {
        if (a.failed)
            snprintf(err, n, "out of memory");
        free(a.list);
        return -1;
    }
    qsort(a.list, (size_t)a.count, sizeof *a.list, by_core);
    site_table_init(t, app_cols, sizeof app_cols / sizeof *app_cols);
    *read = 0;
    int rc = 0;
    for (long i = 0; i < a.count; i++) {
        struct app_acc *c = &a.list[i];
        *read += c->jobs;
        if ((limit > 0 && i >= limit) || rc)
            continue;
        char jobs[32], core[32], mpi[32], share[32], median[32] = "", worst[32] = "",
                                                     worst_job[96] = "";
        snprintf(jobs, sizeof jobs, "%ld", c->jobs);
        fmt(core, sizeof core, "%.3f", c->core / 3600);
        fmt(mpi, sizeof mpi, "%.3f", c->mpi / 3600);
        fmt(share, sizeof share, "%.3f", c->core > 0 ? c->mpi / c->core : 0);
        if (c->npe)
            rc = app_efficiencies(s, &w, c, median, worst, worst_job, err, n);
        const char *cells[] = {c->app, jobs, core, mpi, share, median, worst, worst_job};
        site_table_add(t, cells);
    }
    free(a.list);
    return rc;
}

static int by_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* ---- usage ---- */

static const struct site_column usage_cols[] = {{"section", "SECTION", -14},
                                                {"item", "ITEM", -28},
                                                {"value", "VALUE", 16},
                                                {"share", "SHARE", 9}};

/* The kind of an MPI operation by its name: point-to-point (and the completions, which
 * finish point-to-point requests mostly), collective, one-sided, file, other. */
static const char *kind_of(const char *op)
{
    static const char *const coll[] = {"Barrier",   "Bcast",    "Gather",    "Scatter", "Reduce",
                                       "Allreduce", "Alltoall", "Allgather", "Scan",    "Exscan",
                                       "Neighbor_", "Ibarrier", "Ibcast"};
    static const char *const p2p[] = {"Send", "Recv",  "send",  "recv",  "Wait",
                                      "Test", "Probe", "probe", "Start", "Cancel"};
    const char *name = strncmp(op, "MPI_", 4) == 0 ? op + 4 : op;
    if (strncmp(name, "File_", 5) == 0)
        return "file";
    if (strncmp(name, "Win_", 4) == 0 || strstr(name, "Put") || strstr(name, "Get") ||
        strstr(name, "ccumulate") || strstr(name, "Compare_and_swap"))
        return "one-sided";
    for (size_t i = 0; i < sizeof coll / sizeof *coll; i++)
        if (strstr(name, coll[i]))
            return "collective";
    for (size_t i = 0; i < sizeof p2p / sizeof *p2p; i++)
        if (strstr(name, p2p[i]))
            return "point-to-point";
    return "other";
}

struct usage {
    struct site_table *t;
    double total; /* MPI seconds of the jobs read */
    double kinds[5];
    double msgs_total;
};

static const char *const kind_names[] = {"point-to-point", "collective", "one-sided", "file",
                                         "other"};

static void add_usage(struct site_table *t, const char *section, const char *item, double value,
                      const char *value_fmt, double share)
{
    char v[48], sh[32];
    snprintf(v, sizeof v, value_fmt, value);
    snprintf(sh, sizeof sh, "%.6f", share);
    const char *cells[] = {section, item, v, sh};
    site_table_add(t, cells);
}

static int op_row(void *arg, int ncol, const char *const *v)
{
    struct usage *u = arg;
    (void)ncol;
    double sec = num(v[1]);
    add_usage(u->t, "operations", v[0], sec / 3600, "%.6f", u->total > 0 ? sec / u->total : 0);
    const char *k = kind_of(v[0]);
    for (int i = 0; i < 5; i++)
        if (strcmp(k, kind_names[i]) == 0)
            u->kinds[i] += sec;
    return 0;
}

struct bins {
    double min[72], max[72], messages[72];
    int count;
};

static int bin_row(void *arg, int ncol, const char *const *v)
{
    struct bins *b = arg;
    (void)ncol;
    if (b->count < 72) {
        b->min[b->count] = num(v[0]);
        b->max[b->count] = num(v[1]);
        b->messages[b->count++] = num(v[2]);
    }
    return 0;
}

struct pairs {
    char items[64][48];
    double value[64];
    int count;
};

static int pair_row(void *arg, int ncol, const char *const *v)
{
    struct pairs *p = arg;
    (void)ncol;
    if (p->count < 64) {
        long long size = v[0] ? atoll(v[0]) : 0;
        if (size > 0)
            snprintf(p->items[p->count], 48, "%lld ranks", size);
        else
            snprintf(p->items[p->count], 48, "no communicator");
        p->value[p->count++] = num(v[1]);
    }
    return 0;
}

struct shape {
    double jobs_by_ranks[40], jobs_by_nodes[40];
    long jobs;
};

static int pow2_bin(double v)
{
    int b = 0;
    while (v > 1 && b < 39) {
        v /= 2;
        b++;
    }
    return b;
}

static int shape_row(void *arg, int ncol, const char *const *v)
{
    struct shape *s = arg;
    (void)ncol;
    int r = pow2_bin(num(v[0])), nb = pow2_bin(num(v[1]));
    long jobs = atol(v[2] ? v[2] : "0");
    s->jobs_by_ranks[r] += jobs;
    s->jobs_by_nodes[nb] += jobs;
    s->jobs += jobs;
    return 0;
}

static void bin_label(char *out, size_t n, int b, const char *unit)
{
    if (b == 0)
        snprintf(out, n, "1 %s", unit);
    else if (b == 1)
        snprintf(out, n, "2 %s", unit);
    else
        snprintf(out, n, "%.0f-%.0f %s", pow(2, b - 1) + 1, pow(2, b), unit);
}

static int total_row(void *arg, int ncol, const char *const *v)
{
    double *out = arg;
    for (int i = 0; i < ncol && i < 4; i++)
        out[i] = num(v[i]);
    return 1;
}

/* " FROM TABLE c ..." for one of a job's row tables (alias c) under F: joined to the jobs
 * when F filters by a job's account, application or time; by the row's own owner when by
 * the user alone (every table carries it), which spares the join over every row. */
static void rows_of(const char *table, const struct site_filter *f, const struct site_where *w,
                    char *out, size_t n)
{
    if (f->account || f->app || f->since > 0 || f->until > 0)
        snprintf(out, n, " FROM %s c JOIN jobs j ON j.record_key = c.record_key%s", table, w->sql);
    else
        snprintf(out, n, " FROM %s c%s", table, f->user ? " WHERE c.owner = $1" : "");
}

int site_query_usage(struct site_store *s, const struct site_filter *f, struct site_table *t,
                     long *read, char *err, size_t n)
{
    char sql[2048];
    struct site_where w;
    site_where(f, &w);
    site_table_init(t, usage_cols, sizeof usage_cols / sizeof *usage_cols);
    /* every job or one user's: from the totals the store keeps (site_totals.h) */
    double totals[4] = {0};
    question_sql(f, &w, &all_jobs, sql, sizeof sql);
    if (site_query(s, sql, w.n, w.params, total_row, totals, err, n))
        return -1;
    *read = (long)totals[0];
    struct usage u = {t, totals[1], {0}, 0};
    add_usage(t, "total", "core-hours", totals[2] / 3600, "%.6f", 1);
    add_usage(t, "total", "MPI core-hours", totals[1] / 3600, "%.6f",
              totals[2] > 0 ? totals[1] / totals[2] : 0);
    question_sql(f, &w, &by_operation, sql, sizeof sql);
    if (site_query(s, sql, w.n, w.params, op_row, &u, err, n))
        return -1;
    if (totals[3] > 0)
        add_usage(t, "operations", "(other operations)", totals[3] / 3600, "%.6f",
                  totals[1] > 0 ? totals[3] / totals[1] : 0);
    for (int i = 0; i < 5; i++)
        if (u.kinds[i] > 0)
            add_usage(t, "kinds", kind_names[i], u.kinds[i] / 3600, "%.6f",
                      totals[1] > 0 ? u.kinds[i] / totals[1] : 0);
    struct bins b = {.count = 0};
    question_sql(f, &w, &by_size, sql, sizeof sql);
    if (site_query(s, sql, w.n, w.params, bin_row, &b, err, n))
        return -1;
    double msgs = 0;
    for (int i = 0; i < b.count; i++)
        msgs += b.messages[i];
    for (int i = 0; i < b.count; i++) {
        char item[64];
        snprintf(item, sizeof item, "%.0f-%.0f bytes", b.min[i], b.max[i]);
        add_usage(t, "message_sizes", item, b.messages[i], "%.0f",
                  msgs > 0 ? b.messages[i] / msgs : 0);
    }
    struct pairs pr = {.count = 0};
    question_sql(f, &w, &by_communicator, sql, sizeof sql);
    if (site_query(s, sql, w.n, w.params, pair_row, &pr, err, n))
        return -1;
    double top = 0;
    for (int i = 0; i < pr.count; i++)
        top += pr.value[i];
    for (int i = 0; i < pr.count; i++)
        add_usage(t, "communicators", pr.items[i], pr.value[i] / 3600, "%.6f",
                  top > 0 ? pr.value[i] / top : 0);
    struct shape sh = {{0}, {0}, 0};
    question_sql(f, &w, &by_shape, sql, sizeof sql);
    if (site_query(s, sql, w.n, w.params, shape_row, &sh, err, n))
        return -1;
    for (int i = 0; i < 40; i++)
        if (sh.jobs_by_ranks[i] > 0) {
            char item[64];
            bin_label(item, sizeof item, i, "ranks");
            add_usage(t, "ranks_per_job", item, sh.jobs_by_ranks[i], "%.0f",
                      sh.jobs ? sh.jobs_by_ranks[i] / (double)sh.jobs : 0);
        }
    for (int i = 0; i < 40; i++)
        if (sh.jobs_by_nodes[i] > 0) {
            char item[64];
            bin_label(item, sizeof item, i, "nodes");
            add_usage(t, "nodes_per_job", item, sh.jobs_by_nodes[i], "%.0f",
                      sh.jobs ? sh.jobs_by_nodes[i] / (double)sh.jobs : 0);
        }
    return 0;
}

/* ---- trend ---- */

static const struct site_column trend_cols[] = {{"period", "PERIOD", -10},
                                                {"jobs", "JOBS", 5},
                                                {"parallel_efficiency", "PE", 5},
                                                {"parallel_efficiency_min", "MIN", 5},
                                                {"parallel_efficiency_max", "MAX", 5},
                                                {"parallel_efficiency_change", "PE CHANGE", -16},
                                                {"mpi_share", "MPI%", 5},
                                                {"mpi_share_change", "MPI% CHANGE", -16}};

struct period {
    long key;
    char label[16];
    double *pe, *share;
    int npe, nshare, cap_pe, cap_share;
};

struct periods {
    enum site_period by;
    struct period *list;
    int count, cap;
};

static void period_of(double epoch, enum site_period by, long *key, char *label, size_t n)
{
    time_t at = (time_t)floor(epoch);
    long day = (long)floor(epoch / 86400);
    struct tm tm;
    if (by == SITE_BY_MONTH) {
        gmtime_r(&at, &tm);
        *key = (long)(tm.tm_year * 12 + tm.tm_mon);
        strftime(label, n, "%Y-%m", &tm);
        return;
    }
    if (by == SITE_BY_WEEK) /* 1970-01-01 was a Thursday: weeks start on Mondays */
        day = (long)floor((day + 3) / 7.0) * 7 - 3;
    *key = day;
    time_t start = (time_t)day * 86400;
    gmtime_r(&start, &tm);
    strftime(label, n, "%Y-%m-%d", &tm);
}

static int max_row(void *arg, int ncol, const char *const *v)
{
    *(double *)arg = ncol > 0 && v[0] ? num(v[0]) : 0;
    return 1;
}

int site_query_recent(struct site_store *s, const struct site_filter *f, int weeks, double *since,
                      char *err, size_t n)
{
    struct site_where w;
    site_where(f, &w);
    char sql[1200];
    snprintf(sql, sizeof sql, "SELECT MAX(j.start_epoch) FROM jobs j%s", w.sql);
    double latest = 0;
    if (site_query(s, sql, w.n, w.params, max_row, &latest, err, n))
        return -1;
    long key;
    char label[16];
    period_of(latest, SITE_BY_WEEK, &key, label, sizeof label);
    *since = ((double)key - 7.0 * (weeks - 1)) * 86400;
    if (f->since > *since)
        *since = f->since;
    return 0;
}

static void push(double **list, int *count, int *cap, double v)
{
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *list = realloc(*list, (size_t)*cap * sizeof **list);
    }
    (*list)[(*count)++] = v;
}

static int trend_row(void *arg, int ncol, const char *const *v)
{
    struct periods *p = arg;
    (void)ncol;
    long key;
    char label[16];
    period_of(num(v[0]), p->by, &key, label, sizeof label);
    struct period *cur = p->count ? &p->list[p->count - 1] : NULL;
    if (!cur || cur->key != key) {
        if (p->count == p->cap)
            p->list =
                realloc(p->list, (size_t)(p->cap = p->cap ? p->cap * 2 : 16) * sizeof *p->list);
        cur = &p->list[p->count++];
        memset(cur, 0, sizeof *cur);
        cur->key = key;
        snprintf(cur->label, sizeof cur->label, "%s", label);
    }
    if (v[1])
        push(&cur->pe, &cur->npe, &cur->cap_pe, num(v[1]));
    push(&cur->share, &cur->nshare, &cur->cap_share, num(v[2]) > 0 ? num(v[3]) / num(v[2]) : 0);
    return 0;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The change from the period before, in words: "changed +0.120", "within noise", "not
 * judged (1 job)", "same"; "" for the first period. */
static void change_text(char *out, size_t n, const double *a, int na, const double *b, int nb)
{
    if (!a) {
        out[0] = 0;
        return;
    }
    struct noise_judgement j;
    noise_judge(a, na, b, nb, -1, 0.02, &j);
    switch (j.verdict) {
    case NOISE_CHANGED:
        snprintf(out, n, "changed %+.3f", j.delta);
        break;
    case NOISE_WITHIN:
        snprintf(out, n, "within noise");
        break;
    case NOISE_UNJUDGED:
        snprintf(out, n, "not judged");
        break;
    case NOISE_SAME:
        snprintf(out, n, "same");
        break;
    }
}

int site_query_trend(struct site_store *s, const struct site_filter *f, enum site_period by,
                     struct site_table *t, long *read, char *err, size_t n)
{
    char sql[2048];
    struct site_where w;
    site_where(f, &w);
    snprintf(sql, sizeof sql,
             "SELECT j.start_epoch, j.parallel_efficiency, j.core_seconds, j.mpi_seconds FROM "
             "jobs j%s ORDER BY j.start_epoch, j.record_key",
             w.sql);
    struct periods ps = {.by = by};
    if (site_query(s, sql, w.n, w.params, trend_row, &ps, err, n))
        return -1;
    site_table_init(t, trend_cols, sizeof trend_cols / sizeof *trend_cols);
    *read = 0;
    const struct period *prev = NULL;
    for (int i = 0; i < ps.count; i++) {
        struct period *c = &ps.list[i];
        *read += c->nshare;
        char jobs[16], pe[16] = "", lo[16] = "", hi[16] = "", share[16], pe_change[48] = "",
                       share_change[48];
        snprintf(jobs, sizeof jobs, "%d", c->nshare);
        if (c->npe) {
            change_text(pe_change, sizeof pe_change, prev && prev->npe ? prev->pe : NULL,
                        prev ? prev->npe : 0, c->pe, c->npe);
            fmt(pe, sizeof pe, "%.3f", median_of(c->pe, c->npe));
            fmt(lo, sizeof lo, "%.3f", c->pe[0]);
            fmt(hi, sizeof hi, "%.3f", c->pe[c->npe - 1]);
        }
        change_text(share_change, sizeof share_change, prev ? prev->share : NULL,
                    prev ? prev->nshare : 0, c->share, c->nshare);
        fmt(share, sizeof share, "%.3f", median_of(c->share, c->nshare));
        const char *cells[] = {c->label, jobs, pe, lo, hi, pe_change, share, share_change};
        site_table_add(t, cells);
        prev = c;
    }
    for (int i = 0; i < ps.count; i++) {
        free(ps.list[i].pe);
        free(ps.list[i].share);
    }
    free(ps.list);
    return 0;
}
