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

#include "site_record.h"

#define MAX_ROWS_PARAMS 70000

/* A multi-row insert being built: SQL text with $N parameters, their values as text. */
struct insert {
    char *sql;
    size_t len, cap;
    char **values;
    int nvalues, ncols, nrows;
    char table[64];
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

static void insert_start(struct insert *in, const char *table, const char *cols, int ncols)
{
    in->len = 0;
    in->nvalues = 0;
    in->nrows = 0;
    in->ncols = ncols;
    snprintf(in->table, sizeof in->table, "%s", table);
    char head[512];
    snprintf(head, sizeof head, "INSERT INTO %s (%s) VALUES ", table, cols);
    add_sql(in, head);
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

/* Opens a row; its NCOLS values follow. */
static void row_start(struct insert *in)
{
    char part[32];
    add_sql(in, in->nrows ? ",(" : "(");
    for (int c = 0; c < in->ncols; c++) {
        snprintf(part, sizeof part, "%s$%d", c ? "," : "", in->nvalues + c + 1);
        add_sql(in, part);
    }
    add_sql(in, ")");
    in->nrows++;
}

static void free_values(struct insert *in)
{
    for (int i = 0; i < in->nvalues; i++)
        free(in->values[i]);
    in->nvalues = 0;
}

/* Runs the insert (nothing when it has no rows); *changed: rows inserted. */
static int insert_run(struct site_store *s, struct insert *in, long *changed, char *err, size_t n)
{
    *changed = 0;
    if (!in->nrows)
        return 0;
    add_sql(in, " ON CONFLICT DO NOTHING");
    int rc = site_run(s, in->sql, in->nvalues, (const char *const *)in->values, changed, err, n);
    free_values(in);
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

/* Stores one record: the job row, then (only when it was new) its lists. */
static int store_record(struct site_store *s, struct insert *in, const struct site_record *r,
                        int *stored, char *err, size_t n)
{
    insert_start(in, "jobs", job_cols, JOB_COLS);
    row_start(in);
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
    long changed;
    if (insert_run(s, in, &changed, err, n))
        return -1;
    *stored = changed > 0;
    if (!changed)
        return 0;
    insert_start(in, "job_operations", "record_key, owner, operation, calls, seconds", 5);
    for (int i = 0; i < r->n_ops; i++) {
        row_start(in);
        value_text(in, r->key);
        value_text(in, r->user);
        value_text(in, r->ops[i].operation);
        value_num(in, r->ops[i].calls);
        value_num(in, r->ops[i].seconds);
    }
    if (insert_run(s, in, &changed, err, n))
        return -1;
    insert_start(in, "job_top_operations",
                 "record_key, owner, position, operation, communicator, communicator_size, "
                 "calls, seconds",
                 8);
    for (int i = 0; i < r->n_top; i++) {
        row_start(in);
        value_text(in, r->key);
        value_text(in, r->user);
        value_int(in, i + 1);
        value_text(in, r->top[i].operation);
        value_text(in, or_null(r->top[i].communicator));
        value_int(in, r->top[i].comm_size);
        value_num(in, r->top[i].calls);
        value_num(in, r->top[i].seconds);
    }
    if (insert_run(s, in, &changed, err, n))
        return -1;
    insert_start(in, "job_message_sizes", "record_key, owner, min_bytes, max_bytes, messages", 5);
    for (int i = 0; i < r->n_bins; i++) {
        row_start(in);
        value_text(in, r->key);
        value_text(in, r->user);
        value_num(in, r->bins[i].min_bytes);
        value_num(in, r->bins[i].max_bytes);
        value_num(in, r->bins[i].messages);
    }
    if (insert_run(s, in, &changed, err, n))
        return -1;
    insert_start(in, "job_call_sites",
                 "record_key, owner, position, operation, file, line, function_name, object, "
                 "seconds",
                 9);
    for (int i = 0; i < r->n_sites; i++) {
        row_start(in);
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
    return insert_run(s, in, &changed, err, n);
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
    if (f) {
        fprintf(f, "%s\n", why);
        fclose(f);
    }
    fprintf(stderr, "mpilens: site ingest: %s: rejected: %s\n", name, why);
    c->rejected++;
}

/* Reads SPOOL/NAME into REC: 0; -1 rejected (WHY); -2 newer version (WHY); -3 gone. */
static int read_one(const char *spool, const char *name, struct site_record *rec, char *why,
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
    if (st.st_size > SITE_RECORD_MAX_BYTES) {
        close(fd);
        snprintf(why, n, "oversized: %lld bytes, a record is at most %d", (long long)st.st_size,
                 SITE_RECORD_MAX_BYTES);
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
    int rc = site_record_read(text, (size_t)got, rec, why, n);
    free(text);
    if (rc)
        return rc;
    /* the record's user must be the file's owner: the spool is shared, so a record naming
     * another user would be a forgery */
    struct passwd *pw = getpwuid(st.st_uid);
    if ((long long)st.st_uid != rec->uid || !pw || strcmp(pw->pw_name, rec->user) != 0) {
        snprintf(why, n, "forged: the record names user %s (uid %lld), the file belongs to %s (uid %u)",
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
    struct insert in = {.values = malloc(MAX_ROWS_PARAMS * sizeof(char *))};
    struct site_record *rec = malloc(sizeof *rec);
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
        long stored = 0, already = 0;
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
            int was_new = 0;
            if (add_user(s, seen, rec->user, err, n) ||
                store_record(s, &in, rec, &was_new, err, n)) {
                free_values(&in);
                rc = -1;
                break;
            }
            was_new ? stored++ : already++;
            done[ndone++] = names[i];
        }
        if (rc == 0 && site_exec(s, "COMMIT", err, n) == 0) {
            c->stored += stored;
            c->already += already;
            for (int k = 0; k < ndone; k++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", spool, done[k]);
                if (unlink(path) != 0 && errno != ENOENT)
                    fprintf(stderr, "mpilens: site ingest: %s: stored, but not removed: %s\n",
                            path, strerror(errno));
            }
        } else {
            char ignore[128];
            site_exec(s, "ROLLBACK", ignore, sizeof ignore);
            rc = -1;
        }
    }
    for (long k = 0; k < count; k++)
        free(names[k]);
    free(names);
    free(done);
    free(seen);
    free(rec);
    free(in.values);
    free(in.sql);
    return rc;
}
