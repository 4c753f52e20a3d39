/* SPDX-License-Identifier: BSD-3-Clause */
/* site_ingest.c: records from a spool into the site store (site_ingest.h). Each record is
 * read through site_spool.h (relative to the spool's descriptor, never through a link) and
 * checked against the file's owner before anything is stored; a batch's rows go in one
 * transaction (multi-row inserts, ON CONFLICT DO NOTHING, so a job step already stored adds
 * nothing) and its files are deleted after the commit. A batch the store refuses is tried
 * again one record at a time: the record the store refuses is rejected with the store's
 * reason, and the others go in. On PostgreSQL a user stored for the first time gets a login
 * role (mpilens_add_user).
 */
#include "site_ingest.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "site_spool.h"
#include "summary_record.h"
#include "text_utf8.h"

#define MAX_PARAMS 30000 /* per statement: SQLite allows 32766, PostgreSQL 65535 */

/* A multi-row insert being built: SQL text with $N parameters, their values as text. */
struct insert {
    char *sql;
    size_t len, cap;
    char *values[MAX_PARAMS];
    int nvalues, ncols, nrows;
    char head[640];
    long changed; /* rows inserted by the statements run so far */
};

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
    if (in->nvalues + in->ncols > MAX_PARAMS && insert_run(s, in, err, n))
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

/* The five tables' inserts of a batch: a record adds its rows to each, and each runs when
 * full and at the batch's end. A job step already stored adds nothing: every table's key
 * holds the record's key (ON CONFLICT DO NOTHING). */
enum { T_JOBS, T_OPS, T_TOP, T_BINS, T_SITES, N_TABLES };

static void inserts_init(struct insert *t)
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

static int inserts_run(struct site_store *s, struct insert *t, char *err, size_t n)
{
    for (int i = 0; i < N_TABLES; i++)
        if (insert_run(s, &t[i], err, n))
            return -1;
    return 0;
}

static void inserts_forget(struct insert *t)
{
    for (int i = 0; i < N_TABLES; i++) {
        free_values(&t[i]);
        insert_reset(&t[i]);
        t[i].changed = 0;
    }
}

static void inserts_free(struct insert *t)
{
    for (int i = 0; i < N_TABLES; i++) {
        free_values(&t[i]);
        free(t[i].sql);
    }
}

/* Adds one record's rows: its job, its operations, top operations, sizes and sites. */
static int store_record(struct site_store *s, struct insert *t, const struct summary_record *r,
                        char *err, size_t n)
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

/* Role names PostgreSQL keeps for itself: no user of the store can be called so. */
static const char *const reserved_names[] = {"public", "none", "current_user", "current_role",
                                             "session_user", "system_user", "all"};

/* Whether USER is a name the store can make a role of (site_schema.c's mpilens_add_user);
 * if not, why in WHY. */
static int usable_user(const char *user, char *why, size_t n)
{
    size_t len = strlen(user);
    int usable = len > 0 && len <= 63 && strncmp(user, "pg_", 3) != 0 &&
                 strncmp(user, "mpilens_", 8) != 0 && user[0] != '.' && user[0] != '-' &&
                 user[0] != '@';
    for (size_t k = 0; k < len && usable; k++) {
        char ch = user[k];
        usable = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == '-' || ch == '@';
    }
    for (size_t k = 0; usable && k < sizeof reserved_names / sizeof *reserved_names; k++)
        if (strcmp(user, reserved_names[k]) == 0) {
            snprintf(why, n, "user name '%s' is reserved by PostgreSQL: the store cannot keep it",
                     user);
            return 0;
        }
    if (!usable)
        snprintf(why, n,
                 "user name '%.64s' is not one the store keeps (letters, digits, _ . - @; not pg_ "
                 "or mpilens_)",
                 user);
    return usable;
}

/* Reads file F into REC: 0; -1 rejected (WHY); -2 newer version (WHY); -3 gone; -4 this
 * user cannot read it (WHY): it stays. */
static int read_one(const struct site_spool *sp, const struct spool_file *f,
                    struct summary_record *rec, char *why, size_t n)
{
    char *text;
    size_t len;
    uid_t owner;
    int rc = site_spool_read(sp, f, SUMMARY_RECORD_MAX_BYTES, &text, &len, &owner, why, n);
    if (rc)
        return rc;
    rc = summary_record_read(text, len, rec, why, n);
    free(text);
    if (rc)
        return rc;
    if (!usable_user(rec->user, why, n))
        return -1;
    /* the record's user must be the file's owner: the spool is shared, so a record naming
     * another user would be a forgery */
    struct passwd *pw = getpwuid(owner);
    if ((long long)owner != rec->uid || !pw || strcmp(pw->pw_name, rec->user) != 0) {
        snprintf(why, n,
                 "forged: the record names user %s (uid %lld), the file belongs to %s (uid %u)",
                 rec->user, rec->uid, pw ? pw->pw_name : "?", (unsigned)owner);
        return -1;
    }
    return 0;
}

/* On PostgreSQL, a login role for each user the batch stores (once a transaction). */
struct seen_users {
    char names[256][64];
    int count;
};

static int add_user(struct site_store *s, struct seen_users *seen, const char *user, char *err,
                    size_t n)
{
    if (!site_is_pg(s))
        return 0;
    for (int i = 0; i < seen->count; i++)
        if (strcmp(seen->names[i], user) == 0)
            return 0;
    const char *p[] = {user};
    if (site_run(s, "SELECT mpilens_add_user($1)", 1, p, NULL, err, n))
        return -1;
    if (seen->count < 256)
        snprintf(seen->names[seen->count++], 64, "%s", user);
    return 0;
}

/* One ingest's state: the spool, the tables being filled, the counts. */
struct run {
    struct site_store *s;
    struct site_spool sp;
    struct insert tables[N_TABLES];
    struct summary_record rec;
    struct seen_users seen;
    struct site_ingest_counts *c;
};

/* A line on stderr about file F: its name with control characters escaped. */
static void say(const struct run *r, const struct spool_file *f, const char *what,
                const char *why)
{
    char name[1100], text[1100];
    lens_escape_controls(name, sizeof name, f->name);
    lens_escape_controls(text, sizeof text, why);
    fprintf(stderr, "mpilens: site ingest: %s/%s%s: %s: %s\n", r->sp.path,
            f->held ? "rejected/newer/" : "", name, what, text);
}

static void reject(struct run *r, const struct spool_file *f, const char *why)
{
    char why_not[1400];
    int moved = site_spool_reject(&r->sp, f, why, why_not, sizeof why_not);
    if (moved < 0) {
        say(r, f, "refused, and left in the spool", why);
        r->c->left++;
        return;
    }
    say(r, f, "rejected", why);
    if (moved > 0)
        say(r, f, "rejected", why_not);
    r->c->rejected++;
}

/* What a file that is not stored becomes (GOT: read_one's answer, not 0). */
static void not_stored(struct run *r, const struct spool_file *f, int got, const char *why)
{
    if (got == -3)
        r->c->gone++;
    else if (got == -2 && site_spool_hold(&r->sp, f, r->rec.version) == 0) {
        say(r, f, "held in rejected/newer/ until an mpilens that reads it ingests", why);
        r->c->held++;
    } else if (got == -2 || got == -4) {
        say(r, f, "left in the spool", why);
        r->c->left++;
    } else
        reject(r, f, why);
}

static void removed(struct run *r, const struct spool_file *f)
{
    if (site_spool_remove(&r->sp, f) != 0 && errno != ENOENT) {
        char why[256];
        snprintf(why, sizeof why, "stored, but not removed: %s", strerror(errno));
        say(r, f, "note", why);
    }
}

static void rollback(struct run *r)
{
    char ignore[128];
    site_exec(r->s, "ROLLBACK", ignore, sizeof ignore);
    inserts_forget(r->tables);
    r->seen.count = 0; /* the roles made in it are gone too */
}

/* Stores F alone in a transaction of its own, after a batch holding it was refused: a
 * record the store refuses is rejected with the store's reason. 0; -1 with ERR when the
 * store itself failed. */
static int store_alone(struct run *r, const struct spool_file *f, char *err, size_t n)
{
    char why[1024];
    int got = read_one(&r->sp, f, &r->rec, why, sizeof why);
    if (got) {
        not_stored(r, f, got, why);
        return 0;
    }
    if (site_exec(r->s, "BEGIN", err, n))
        return -1;
    if (add_user(r->s, &r->seen, r->rec.user, why, sizeof why) == 0 &&
        store_record(r->s, r->tables, &r->rec, why, sizeof why) == 0 &&
        inserts_run(r->s, r->tables, why, sizeof why) == 0 &&
        site_exec(r->s, "COMMIT", why, sizeof why) == 0) {
        r->c->stored += r->tables[T_JOBS].changed;
        r->c->already += 1 - r->tables[T_JOBS].changed;
        inserts_forget(r->tables);
        removed(r, f);
        return 0;
    }
    rollback(r);
    if (site_exec(r->s, "SELECT 1", err, n)) /* the store, not the record */
        return -1;
    char line[1200];
    snprintf(line, sizeof line, "the store refused it: %s", why);
    for (char *nl = strchr(line, '\n'); nl; nl = strchr(nl, '\n'))
        *nl = ' ';
    reject(r, f, line);
    return 0;
}

/* One batch from *I on: up to BATCH records in one transaction, tried one by one when the
 * store refuses it. 0, or -1 with ERR. */
static int one_batch(struct run *r, struct spool_file *files, long count, long *i, int batch,
                     const struct spool_file **done, char *err, size_t n)
{
    int ndone = 0, failed = 0;
    if (site_exec(r->s, "BEGIN", err, n))
        return -1;
    char why[1024];
    for (; *i < count && ndone < batch; (*i)++) {
        const struct spool_file *f = &files[*i];
        if (f->not_record) {
            r->c->not_records++;
            continue;
        }
        int got = read_one(&r->sp, f, &r->rec, why, sizeof why);
        if (got) {
            not_stored(r, f, got, why);
            continue;
        }
        done[ndone++] = f;
        if (add_user(r->s, &r->seen, r->rec.user, err, n) ||
            store_record(r->s, r->tables, &r->rec, err, n)) {
            failed = 1;
            (*i)++;
            break;
        }
    }
    if (!failed && inserts_run(r->s, r->tables, err, n) == 0 &&
        site_exec(r->s, "COMMIT", err, n) == 0) {
        r->c->stored += r->tables[T_JOBS].changed;
        r->c->already += ndone - r->tables[T_JOBS].changed;
        inserts_forget(r->tables);
        for (int k = 0; k < ndone; k++)
            removed(r, done[k]);
        return 0;
    }
    rollback(r);
    for (int k = 0; k < ndone; k++)
        if (store_alone(r, done[k], err, n))
            return -1;
    return 0;
}

int site_ingest(struct site_store *s, const char *spool, const struct site_ingest_options *o,
                struct site_ingest_counts *c, char *err, size_t n)
{
    memset(c, 0, sizeof *c);
    struct run *r = calloc(1, sizeof *r);
    r->s = s;
    r->c = c;
    if (site_spool_open(&r->sp, spool, o->rejected, err, n)) {
        free(r);
        return -2;
    }
    snprintf(c->rejected_path, sizeof c->rejected_path, "%s", r->sp.rejected_path);
    if (r->sp.problem[0]) {
        char problem[1100];
        lens_escape_controls(problem, sizeof problem, r->sp.problem);
        fprintf(stderr, "mpilens: site ingest: %s\n", problem);
        c->unsafe = 1;
    }
    c->expired = site_spool_expire(&r->sp, o->keep_days);
    struct spool_file *files;
    long count = site_spool_list(&r->sp, SUMMARY_SCHEMA_VERSION, &files, &c->waiting);
    if (count < 0) {
        snprintf(err, n, "%s: cannot read the spool: %s", spool, strerror(errno));
        site_spool_close(&r->sp);
        free(r);
        return -1;
    }
    c->entries = count;
    inserts_init(r->tables);
    int batch = o->batch > 0 ? o->batch : 1;
    const struct spool_file **done = malloc((size_t)batch * sizeof *done);
    int rc = 0;
    for (long i = 0; i < count && rc == 0;)
        rc = one_batch(r, files, count, &i, batch, done, err, n);
    free(done);
    site_spool_free_list(files, count);
    inserts_free(r->tables);
    site_spool_close(&r->sp);
    free(r);
    return rc;
}
