/* SPDX-License-Identifier: BSD-3-Clause */
/* site_rows.c: a summary record's rows in the site store's five tables (site_rows.h), as
 * multi-row INSERT statements with $N parameters (values as text), each run when the next
 * row would pass the parameters a statement may have, and at the batch's end.
 */
#include "site_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void add_sql(struct insert *in, const char *text)
{
    size_t n = strlen(text);
    if (in->len + n + 1 > in->cap) {
        in->cap = (in->len + n + 1) * 2;
        in->sql = realloc(in->sql, in->cap);
    }
    memcpy(in->sql + in->len, text, n + 1);
    in->len += n;
}

static void insert_reset(struct insert *in)
{
    in->len = 0;
    in->nvalues = 0;
    in->nrows = 0;
    add_sql(in, in->head);
}

static void insert_init(struct insert *in, const char *table, const char *cols, int ncols)
{
    memset(in, 0, sizeof *in);
    in->ncols = ncols;
    snprintf(in->head, sizeof in->head, "INSERT INTO %s (%s) VALUES ", table, cols);
    insert_reset(in);
}

static void value_text(struct insert *in, const char *text)
{
    in->values[in->nvalues++] = text ? strdup(text) : NULL;
}

static void value_num(struct insert *in, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    value_text(in, buf);
}

static void value_int(struct insert *in, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    value_text(in, buf);
}

static int insert_run(struct site_store *s, struct insert *in, char *err, size_t n);

/* Opens a row (running the statement first when another row would not fit); its NCOLS
 * values follow. 0, or -1 with ERR. */
static int row_start(struct site_store *s, struct insert *in, char *err, size_t n)
{
    if (in->nvalues + in->ncols > SITE_ROWS_MAX_PARAMS && insert_run(s, in, err, n))
        return -1;
    char part[32];
    add_sql(in, in->nrows ? ",(" : "(");
    for (int c = 0; c < in->ncols; c++) {
        snprintf(part, sizeof part, "%s$%d", c ? "," : "", in->nvalues + c + 1);
        add_sql(in, part);
    }
    add_sql(in, ")");
    in->nrows++;
    return 0;
}

static void free_values(struct insert *in)
{
    for (int i = 0; i < in->nvalues; i++)
        free(in->values[i]);
    in->nvalues = 0;
}

/* Runs the insert built so far (nothing when it has no rows), adding the rows it inserted
 * to in->changed (a row already stored adds nothing), and starts the next. */
static int insert_run(struct site_store *s, struct insert *in, char *err, size_t n)
{
    if (!in->nrows)
        return 0;
    add_sql(in, " ON CONFLICT DO NOTHING");
    long changed = 0;
    int rc = site_run(s, in->sql, in->nvalues, (const char *const *)in->values, &changed, err, n);
    free_values(in);
    insert_reset(in);
    in->changed += changed;
    return rc;
}

static const char job_cols[] =
    "record_key, owner, uid, job_id, step, job_name, account, partition_name, cluster, app, "
    "program, build_id, python_script, mpi_library, mpi_standard, ranks, ranks_measured, nodes, "
    "rpn_min, rpn_max, first_host, start_epoch, end_epoch, run_seconds, core_seconds, "
    "mpi_seconds, mpi_share, load_balance, comm_efficiency, parallel_efficiency, p2p_messages, "
    "p2p_bytes, within_messages, within_bytes, between_messages, between_bytes, "
    "other_ops_seconds, clock, ended, version, ingested_epoch";
#define JOB_COLS 41

static const char *or_null(const char *s)
{
    return s[0] ? s : NULL;
}

static void value_eff(struct insert *in, double v)
{
    if (v < 0)
        value_text(in, NULL);
    else
        value_num(in, v);
}

void site_rows_init(struct insert *t)
{
    insert_init(&t[T_JOBS], "jobs", job_cols, JOB_COLS);
    insert_init(&t[T_OPS], "job_operations", "record_key, owner, operation, calls, seconds", 5);
    insert_init(&t[T_TOP], "job_top_operations",
                "record_key, owner, position, operation, communicator, communicator_size, "
                "calls, seconds",
                8);
    insert_init(&t[T_BINS], "job_message_sizes",
                "record_key, owner, min_bytes, max_bytes, messages", 5);
    insert_init(&t[T_SITES], "job_call_sites",
                "record_key, owner, position, operation, file, line, function_name, object, "
                "seconds",
                9);
}

int site_rows_run(struct site_store *s, struct insert *t, char *err, size_t n)
{
    for (int i = 0; i < N_TABLES; i++)
        if (insert_run(s, &t[i], err, n))
            return -1;
    return 0;
}

void site_rows_forget(struct insert *t)
{
    for (int i = 0; i < N_TABLES; i++) {
        free_values(&t[i]);
        insert_reset(&t[i]);
        t[i].changed = 0;
    }
}

void site_rows_free(struct insert *t)
{
    for (int i = 0; i < N_TABLES; i++) {
        free_values(&t[i]);
        free(t[i].sql);
    }
}

/* Adds one record's rows: its job, its operations, top operations, sizes and sites. */
int site_rows_add(struct site_store *s, struct insert *t, const struct summary_record *r, char *err,
                  size_t n)
{
    struct insert *in = &t[T_JOBS];
    if (row_start(s, in, err, n))
        return -1;
    value_text(in, r->key);
    value_text(in, r->user);
    value_int(in, r->uid);
    value_text(in, or_null(r->job_id));
    value_text(in, or_null(r->step));
    value_text(in, or_null(r->job_name));
    value_text(in, or_null(r->account));
    value_text(in, or_null(r->partition));
    value_text(in, or_null(r->cluster));
    value_text(in, r->app);
    value_text(in, r->program);
    value_text(in, or_null(r->build_id));
    value_text(in, or_null(r->python_script));
    value_text(in, or_null(r->mpi_library));
    value_text(in, or_null(r->mpi_standard));
    value_int(in, r->ranks);
    value_int(in, r->ranks_measured);
    value_int(in, r->nodes);
    value_int(in, r->rpn_min);
    value_int(in, r->rpn_max);
    value_text(in, or_null(r->first_host));
    value_num(in, r->start_epoch);
    value_num(in, r->end_epoch);
    value_num(in, r->run_seconds);
    value_num(in, r->run_seconds * (double)r->ranks);
    value_num(in, r->mpi_seconds);
    value_num(in, r->mpi_share);
    value_eff(in, r->load_balance);
    value_eff(in, r->comm_efficiency);
    value_eff(in, r->parallel_efficiency);
    value_num(in, r->p2p_messages);
    value_num(in, r->p2p_bytes);
    value_num(in, r->within_messages);
    value_num(in, r->within_bytes);
    value_num(in, r->between_messages);
    value_num(in, r->between_bytes);
    value_num(in, r->other_ops_seconds);
    value_text(in, or_null(r->clock));
    value_text(in, or_null(r->ended));
    value_int(in, r->version);
    value_num(in, (double)time(NULL));
    in = &t[T_OPS];
    for (int i = 0; i < r->n_ops; i++) {
        if (row_start(s, in, err, n))
            return -1;
        value_text(in, r->key);
        value_text(in, r->user);
        value_text(in, r->ops[i].operation);
        value_num(in, r->ops[i].calls);
        value_num(in, r->ops[i].seconds);
    }
    in = &t[T_TOP];
    for (int i = 0; i < r->n_top; i++) {
        if (row_start(s, in, err, n))
            return -1;
        value_text(in, r->key);
        value_text(in, r->user);
        value_int(in, i + 1);
        value_text(in, r->top[i].operation);
        value_text(in, or_null(r->top[i].communicator));
        value_int(in, r->top[i].comm_size);
        value_num(in, r->top[i].calls);
        value_num(in, r->top[i].seconds);
    }
    in = &t[T_BINS];
    for (int i = 0; i < r->n_bins; i++) {
        if (row_start(s, in, err, n))
            return -1;
        value_text(in, r->key);
        value_text(in, r->user);
        value_num(in, r->bins[i].min_bytes);
        value_num(in, r->bins[i].max_bytes);
        value_num(in, r->bins[i].messages);
    }
    in = &t[T_SITES];
    for (int i = 0; i < r->n_sites; i++) {
        if (row_start(s, in, err, n))
            return -1;
        value_text(in, r->key);
        value_text(in, r->user);
        value_int(in, i + 1);
        value_text(in, or_null(r->sites[i].operation));
        value_text(in, or_null(r->sites[i].file));
        value_int(in, r->sites[i].line);
        value_text(in, or_null(r->sites[i].function));
        value_text(in, or_null(r->sites[i].object));
        value_num(in, r->sites[i].seconds);
    }
    return 0;
}
