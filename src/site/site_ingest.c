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

#include "site_rows.h"
#include "site_spool.h"
#include "summary_record.h"
#include "text_utf8.h"

/* Role names PostgreSQL keeps for itself: no user of the store can be called so. */
static const char *const reserved_names[] = {
    "public", "none", "current_user", "current_role", "session_user", "system_user", "all"};

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
static void say(const struct run *r, const struct spool_file *f, const char *what, const char *why)
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
    site_rows_forget(r->tables);
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
        site_rows_add(r->s, r->tables, &r->rec, why, sizeof why) == 0 &&
        site_rows_run(r->s, r->tables, why, sizeof why) == 0 &&
        site_exec(r->s, "COMMIT", why, sizeof why) == 0) {
        r->c->stored += r->tables[T_JOBS].changed;
        r->c->already += 1 - r->tables[T_JOBS].changed;
        site_rows_forget(r->tables);
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
            site_rows_add(r->s, r->tables, &r->rec, err, n)) {
            failed = 1;
            (*i)++;
            break;
        }
    }
    if (!failed && site_rows_run(r->s, r->tables, err, n) == 0 &&
        site_exec(r->s, "COMMIT", err, n) == 0) {
        r->c->stored += r->tables[T_JOBS].changed;
        r->c->already += ndone - r->tables[T_JOBS].changed;
        site_rows_forget(r->tables);
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
    site_rows_init(r->tables);
    int batch = o->batch > 0 ? o->batch : 1;
    const struct spool_file **done = malloc((size_t)batch * sizeof *done);
    int rc = 0;
    for (long i = 0; i < count && rc == 0;)
        rc = one_batch(r, files, count, &i, batch, done, err, n);
    free(done);
    site_spool_free_list(files, count);
    site_rows_free(r->tables);
    site_spool_close(&r->sp);
    free(r);
    return rc;
}
