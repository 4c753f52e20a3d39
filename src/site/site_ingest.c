/* site_ingest.c: records from a spool into the site store (site_ingest.h). Each record is
 * read with O_NOFOLLOW and checked against the file's owner before anything is stored; a
 * batch's rows go in one transaction (multi-row inserts, ON CONFLICT DO NOTHING, so a job
 * step already stored adds nothing) and its files are deleted after the commit. On
 * PostgreSQL a user stored for the first time gets a login role (mpilens_add_user).
 */
#include "site_ingest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "summary_record.h"

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

/* Moves SPOOL/NAME to SPOOL/rejected/NAME with NAME.reason (one line) beside it. */
static void reject(const char *spool, const char *name, const char *why,
                   struct site_ingest_counts *c)
{
    char dir[4096], from[4096], to[4200], reason[4300];
    snprintf(dir, sizeof dir, "%s/rejected", spool);
    snprintf(from, sizeof from, "%s/%s", spool, name);
    snprintf(to, sizeof to, "%s/%s", dir, name);
    snprintf(reason, sizeof reason, "%s/%s.reason", dir, name);
    if ((mkdir(dir, 0750) != 0 && errno != EEXIST) || rename(from, to) != 0) {
        fprintf(stderr, "mpilens: site ingest: %s: rejected (%s) but not moved to %s: %s\n", from,
                why, dir, strerror(errno));
        c->failed_moves++;
        return;
    }
    FILE *f = fopen(reason, "w");
    int written = f && fprintf(f, "%s\n", why) > 0;
    if (!f || fclose(f) != 0 || !written)
        fprintf(stderr, "mpilens: site ingest: %s: the reason could not be written beside it: %s\n",
                reason, strerror(errno));
    fprintf(stderr, "mpilens: site ingest: %s: rejected: %s\n", name, why);
    c->rejected++;
}

/* Reads SPOOL/NAME into REC: 0; -1 rejected (WHY); -2 newer version (WHY); -3 gone. */
static int read_one(const char *spool, const char *name, struct summary_record *rec, char *why,
                    size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", spool, name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return -3;
        snprintf(why, n, "cannot be read: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, n, "not a regular file");
        return -1;
    }
    if (st.st_size > SUMMARY_RECORD_MAX_BYTES) {
        close(fd);
        snprintf(why, n, "oversized: %lld bytes, a record is at most %d", (long long)st.st_size,
                 SUMMARY_RECORD_MAX_BYTES);
        return -1;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (got != st.st_size) {
        free(text);
        snprintf(why, n, "cannot be read whole");
        return -1;
    }
    int rc = summary_record_read(text, (size_t)got, rec, why, n);
    free(text);
    if (rc)
        return rc;
    /* a user name the store can make a role of (site_schema.c's mpilens_add_user) */
    size_t len = strlen(rec->user);
    int usable = len > 0 && len <= 63 && strncmp(rec->user, "pg_", 3) != 0 &&
                 strncmp(rec->user, "mpilens_", 8) != 0 && rec->user[0] != '.' &&
                 rec->user[0] != '-' && rec->user[0] != '@';
    for (size_t k = 0; k < len && usable; k++) {
        char ch = rec->user[k];
        usable = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == '-' || ch == '@';
    }
    if (!usable) {
        snprintf(why, n,
                 "user name '%.64s' is not one the store keeps (letters, digits, _ . - @; "
                 "not pg_ or mpilens_)",
                 rec->user);
        return -1;
    }
    /* the record's user must be the file's owner: the spool is shared, so a record naming
     * another user would be a forgery */
    struct passwd *pw = getpwuid(st.st_uid);
    if ((long long)st.st_uid != rec->uid || !pw || strcmp(pw->pw_name, rec->user) != 0) {
        snprintf(why, n,
                 "forged: the record names user %s (uid %lld), the file belongs to %s (uid %u)",
                 rec->user, rec->uid, pw ? pw->pw_name : "?", (unsigned)st.st_uid);
        return -1;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spool's candidate records, sorted: *names (malloc'ed), their count; -1 with ERR. */
static long list_spool(const char *spool, char ***names, char *err, size_t n)
{
    DIR *d = opendir(spool);
    if (!d) {
        snprintf(err, n, "%s: cannot read the spool: %s", spool, strerror(errno));
        return -1;
    }
    long count = 0, cap = 256;
    char **list = malloc((size_t)cap * sizeof *list);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
            continue;
        if (count == cap)
            list = realloc(list, (size_t)(cap *= 2) * sizeof *list);
        list[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(list, (size_t)count, sizeof *list, by_name);
    *names = list;
    return count;
}

/* On PostgreSQL, a login role for each user the batch stores (once a run). */
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

int site_ingest(struct site_store *s, const char *spool, int batch, struct site_ingest_counts *c,
                char *err, size_t n)
{
    memset(c, 0, sizeof *c);
    char **names;
    long count = list_spool(spool, &names, err, n);
    if (count < 0)
        return -1;
    struct insert *tables = malloc(N_TABLES * sizeof *tables);
    inserts_init(tables);
    struct summary_record *rec = malloc(sizeof *rec);
    struct seen_users *seen = calloc(1, sizeof *seen);
    char **done = malloc((size_t)(batch > 0 ? batch : 1) * sizeof *done);
    int rc = 0;
    long i = 0;
    while (i < count && rc == 0) {
        int ndone = 0;
        if (site_exec(s, "BEGIN", err, n)) {
            rc = -1;
            break;
        }
        long records = 0;
        for (; i < count && ndone < batch; i++) {
            char why[512];
            int got = read_one(spool, names[i], rec, why, sizeof why);
            if (got == -3)
                continue;
            if (got == -2) {
                fprintf(stderr, "mpilens: site ingest: %s/%s: left in the spool: %s\n", spool,
                        names[i], why);
                c->newer++;
                continue;
            }
            if (got == -1) {
                reject(spool, names[i], why, c);
                continue;
            }
            if (add_user(s, seen, rec->user, err, n) || store_record(s, tables, rec, err, n)) {
                rc = -1;
                break;
            }
            records++;
            done[ndone++] = names[i];
        }
        if (rc == 0 && inserts_run(s, tables, err, n) == 0 && site_exec(s, "COMMIT", err, n) == 0) {
            c->stored += tables[T_JOBS].changed;
            c->already += records - tables[T_JOBS].changed;
            inserts_forget(tables);
            for (int k = 0; k < ndone; k++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", spool, done[k]);
                if (unlink(path) != 0 && errno != ENOENT)
                    fprintf(stderr, "mpilens: site ingest: %s: stored, but not removed: %s\n", path,
                            strerror(errno));
            }
        } else {
            char ignore[128];
            site_exec(s, "ROLLBACK", ignore, sizeof ignore);
            inserts_forget(tables);
            rc = -1;
        }
    }
    for (long k = 0; k < count; k++)
        free(names[k]);
    free(names);
    free(done);
    free(seen);
    free(rec);
    inserts_free(tables);
    free(tables);
    return rc;
}
