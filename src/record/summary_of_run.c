/* summary_of_run.c: DIR/summary.json from the profile in DIR/mpilens.db (summary_of_run.h).
 * Each field as the summary module fills it (docs/summary.md), from the profile's figures:
 * the ranks' times from MPI_Init to MPI_Finalize and in MPI (the POP factors through
 * src/pop), every (communicator, operation, size bucket) cell summed over ranks, the call
 * sites with the most time, the hosts. Point-to-point messages are the sends' calls and
 * bytes, by the profile's size buckets; within and between hosts they are exact on one
 * host and from the monitor's matrix where it ran, else null. The job and the user are
 * those of this process (the `mpilens run` that launched the job).
 */
#define _GNU_SOURCE
#include "summary_of_run.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lens_hidden.h"
#include "pop_run.h"
#include "record_file.h"
#include "record_sections.h"
#include "record_text.h"
#include "run_program.h"
#include "rundb.h"
#include "rundb_read.h"
#include "tick_clock.h"

#define RECORD_MAX 16384
#define TOP 5
#define TOP_OPERATIONS 20
#define MAX_BINS 64

struct op_total {  /* one operation, or one (operation, communicator class) pair */
    char op[52];   /* "MPI_Send" */
    int comm_size; /* -1 MPI_COMM_WORLD, 0 none, else the communicator's size */
    long long calls;
    double seconds;
};

struct digest {
    int ranks;
    /* hosts */
    int hosts, rpn_min, rpn_max;
    char first_host[256];
    /* times */
    double mpi_sum;
    /* operations */
    struct op_total *pairs, *ops;
    int npairs, nops, cap_pairs, cap_ops;
    /* point-to-point sends */
    long long messages, bytes;
    struct {
        long long min, max, messages;
    } bins[MAX_BINS];
    int nbins;
    /* within hosts [1], between [0]: from the monitor's matrix */
    long long split_messages[2], split_bytes[2];
    int *host_of, split_known;
};

static const char *const sends[] = {"Send",
                                    "Isend",
                                    "Ssend",
                                    "Issend",
                                    "Rsend",
                                    "Irsend",
                                    "Bsend",
                                    "Ibsend",
                                    "Sendrecv",
                                    "Isendrecv",
                                    "Sendrecv_replace",
                                    "Isendrecv_replace"};

static int is_send(const char *op)
{
    for (size_t i = 0; i < sizeof sends / sizeof *sends; i++)
        if (strcmp(op, sends[i]) == 0)
            return 1;
    return 0;
}

/* Calls the summary module counts without a communicator: completions, one-sided, files. */
static int without_comm(const char *op, const char *kind)
{
    return strncmp(op, "Wait", 4) == 0 || strncmp(op, "Test", 4) == 0 || strcmp(kind, "rma") == 0 ||
           strcmp(kind, "io") == 0 || strncmp(op, "File_", 5) == 0;
}

static struct op_total *find_or_add(struct op_total **list, int *n, int *cap, const char *op,
                                    int comm_size)
{
    for (int i = 0; i < *n; i++)
        if ((*list)[i].comm_size == comm_size && strcmp((*list)[i].op + 4, op) == 0)
            return &(*list)[i];
    if (*n == *cap) {
        int grown = *cap ? 2 * *cap : 64;
        struct op_total *more = realloc(*list, (size_t)grown * sizeof *more);
        if (!more)
            return NULL;
        *list = more, *cap = grown;
    }
    struct op_total *t = &(*list)[(*n)++];
    memset(t, 0, sizeof *t);
    snprintf(t->op, sizeof t->op, "MPI_%s", op); /* the module's names */
    t->comm_size = comm_size;
    return t;
}

/* MPI_Init and MPI_Finalize are outside the span the record measures, as the module's. */
static int outside_run(const char *op)
{
    return strcmp(op, "Init") == 0 || strcmp(op, "Init_thread") == 0 || strcmp(op, "Finalize") == 0;
}

static void add_cell(const struct rundb_profile_total *t, void *ctx)
{
    struct digest *d = ctx;
    if (outside_run(t->op))
        return;
    int comm_size = without_comm(t->op, t->kind) ? 0
                    : t->comm_size == d->ranks && strcmp(t->creator, "MPI_COMM_WORLD") == 0
                        ? -1
                        : t->comm_size;
    struct op_total *pair = find_or_add(&d->pairs, &d->npairs, &d->cap_pairs, t->op, comm_size),
                    *op = find_or_add(&d->ops, &d->nops, &d->cap_ops, t->op, 0);
    if (pair)
        pair->calls += t->calls, pair->seconds += t->time;
    if (op)
        op->calls += t->calls, op->seconds += t->time;
    if (!is_send(t->op))
        return;
    d->messages += t->calls;
    d->bytes += t->volume;
    int b = 0;
    while (b < d->nbins && d->bins[b].min != t->bucket_min)
        b++;
    if (b == d->nbins && d->nbins < MAX_BINS)
        d->bins[d->nbins++] = (typeof(d->bins[0])){t->bucket_min, t->bucket_max, 0};
    if (b < d->nbins)
        d->bins[b].messages += t->calls;
}

static void add_host(const char *host, int ranks, void *ctx)
{
    struct digest *d = ctx;
    if (d->hosts == 0)
        snprintf(d->first_host, sizeof d->first_host, "%s", host);
    if (d->hosts == 0 || ranks < d->rpn_min)
        d->rpn_min = ranks;
    if (d->hosts == 0 || ranks > d->rpn_max)
        d->rpn_max = ranks;
    d->hosts++;
}

static void add_rank(int rank, double exec, double mpi, double startup, void *ctx)
{
    (void)rank, (void)exec;
    struct digest *d = ctx;
    d->mpi_sum += mpi - startup; /* MPI_Init's own time is not the run's */
}

static void add_p2p_cell(int src, int dst, long long messages, long long bytes, void *ctx)
{
    struct digest *d = ctx;
    if (src < 0 || dst < 0 || src >= d->ranks || dst >= d->ranks || d->host_of[src] < 0 ||
        d->host_of[dst] < 0) {
        d->split_known = 0;
        return;
    }
    int within = d->host_of[src] == d->host_of[dst];
    d->split_messages[within] += messages;
    d->split_bytes[within] += bytes;
}

/* Within and between hosts: all within on one host; else the monitor's matrix, if it ran. */
static void split_by_host(sqlite3 *db, struct digest *d)
{
    if (d->hosts == 1) {
        d->split_known = 1;
        d->split_messages[1] = d->messages, d->split_bytes[1] = d->bytes;
        return;
    }
    d->host_of = calloc((size_t)d->ranks, sizeof *d->host_of);
    char err[256];
    if (!d->host_of || !rundb_matrix_has_cells(db) || rundb_rank_hosts(db, d->host_of, d->ranks))
        return;
    d->split_known = 1;
    if (rundb_matrix_cells(db, "p2p", NULL, add_p2p_cell, d, err, sizeof err) != 0)
        d->split_known = 0;
}

/* The profile's date ("2026-11-28 15:29:21 +0000", written at MPI_Finalize) as epoch. */
static double finalize_epoch(sqlite3 *db)
{
    char date[64];
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!rundb_metadata_get(db, "Profile date", date, sizeof date) ||
        !strptime(date, "%Y-%m-%d %H:%M:%S %z", &tm))
        return (double)time(NULL);
    long offset = tm.tm_gmtoff;
    return (double)(timegm(&tm) - offset);
}

static int by_seconds(const void *a, const void *b)
{
    const struct op_total *x = a, *y = b;
    return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

static void job_and_program(struct record_text *j, sqlite3 *db)
{
    struct passwd *pw = getpwuid(getuid());
    record_section_job(j, pw ? pw->pw_name : "", (long long)getuid());
    char command[4096] = "", path[PATH_MAX] = "", script[PATH_MAX] = "", build_id[96];
    rundb_metadata_get(db, "Run command", command, sizeof command);
    run_program_of(command, path, sizeof path, script, sizeof script);
    run_program_build_id(path, build_id);
    record_text_open(j, "program", '{');
    record_text_string(j, "path", path);
    record_text_string(j, "build_id", build_id[0] ? build_id : NULL);
    record_text_string(j, "python_script", script[0] ? script : NULL);
    record_text_close(j, '}');
    char library[512] = "";
    rundb_metadata_get(db, "MPI Library", library, sizeof library);
    library[strcspn(library, "\n,")] = '\0'; /* "Open MPI v4.1.4", as the module writes it */
    record_text_open(j, "mpi", '{');
    record_text_string(j, "library", library);
    record_text_string(j, "standard", NULL); /* the profile does not record it */
    record_text_close(j, '}');
}

static void operations(struct record_text *j, struct digest *d)
{
    qsort(d->pairs, (size_t)d->npairs, sizeof *d->pairs, by_seconds);
    record_text_open(j, "top_operations", '[');
    for (int i = 0; i < d->npairs && i < TOP; i++) {
        const struct op_total *p = &d->pairs[i];
        char name[64];
        snprintf(name, sizeof name, "communicators of %d ranks", p->comm_size);
        record_text_open(j, NULL, '{');
        record_text_string(j, "operation", p->op);
        record_text_string(j, "communicator",
                           p->comm_size == -1  ? "MPI_COMM_WORLD"
                           : p->comm_size == 0 ? NULL
                                               : name);
        record_text_int(j, "communicator_size", p->comm_size == -1 ? d->ranks : p->comm_size);
        record_text_int(j, "calls", p->calls);
        record_text_number(j, "seconds", p->seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, ']');
    qsort(d->ops, (size_t)d->nops, sizeof *d->ops, by_seconds);
    double rest = 0;
    record_text_open(j, "operations", '{');
    for (int i = 0; i < d->nops; i++) {
        if (i >= TOP_OPERATIONS) {
            rest += d->ops[i].seconds;
            continue;
        }
        record_text_open(j, d->ops[i].op, '{');
        record_text_int(j, "calls", d->ops[i].calls);
        record_text_number(j, "seconds", d->ops[i].seconds);
        record_text_close(j, '}');
    }
    record_text_close(j, '}');
    record_text_number(j, "other_operations_seconds", rest);
}

struct sites {
    struct record_text *j;
    int written;
};

static void add_site(const struct rundb_callsite *s, void *ctx)
{
    struct sites *sites = ctx;
    struct record_text *j = sites->j;
    if (outside_run(s->operation) || sites->written == TOP)
        return;
    sites->written++;
    char name[64];
    snprintf(name, sizeof name, "MPI_%s", s->operation);
    record_text_open(j, NULL, '{');
    record_text_string(j, "operation", name);
    record_text_string(j, "file", s->file);
    record_text_int(j, "line", s->line);
    record_text_string(j, "function", s->function);
    record_text_string(j, "object",
                       s->object && strncmp(s->object, "python:", 7) != 0 ? s->object : NULL);
    record_text_number(j, "seconds", s->time);
    record_text_close(j, '}');
}

static void messages(struct record_text *j, const struct digest *d)
{
    record_text_open(j, "point_to_point", '{');
    record_text_int(j, "messages", d->messages);
    record_text_int(j, "bytes", d->bytes);
    for (int within = 1; within >= 0; within--) {
        const char *key = within ? "within_hosts" : "between_hosts";
        if (!d->split_known) {
            record_text_string(j, key, NULL);
            continue;
        }
        record_text_open(j, key, '{');
        record_text_int(j, "messages", d->split_messages[within]);
        record_text_int(j, "bytes", d->split_bytes[within]);
        record_text_close(j, '}');
    }
    record_text_close(j, '}');
    record_text_open(j, "message_sizes", '[');
    for (int b = 0; b < d->nbins; b++)
        if (d->bins[b].messages) {
            record_text_open(j, NULL, '{');
            record_text_int(j, "min_bytes", d->bins[b].min);
            record_text_int(j, "max_bytes", d->bins[b].max);
            record_text_int(j, "messages", d->bins[b].messages);
            record_text_close(j, '}');
        }
    record_text_close(j, ']');
}

static int by_min(const void *a, const void *b)
{
    const long long *x = a, *y = b; /* each bin starts with its min */
    return (*x > *y) - (*x < *y);
}

/* The record's text of the run in DB into TEXT; 0, or -1 with WHY. */
static int record_of(sqlite3 *db, char *text, char *why, size_t len)
{
    struct digest d;
    memset(&d, 0, sizeof d);
    struct pop_factors f;
    char value[64];
    d.ranks = rundb_metadata_get(db, "Processes", value, sizeof value) ? atoi(value) : 0;
    if (pop_run_factors(db, &f) != 0 || d.ranks <= 0) {
        snprintf(why, len, "its profile has no rank times");
        return -1;
    }
    int rc = -1;
    if (rundb_host_counts(db, add_host, &d) < 0 || rundb_rank_times(db, -1, add_rank, &d) != 0 ||
        rundb_profile_totals(db, add_cell, &d) != 0) {
        snprintf(why, len, "cannot read its profile: %s", rundb_errmsg(db));
        goto done;
    }
    qsort(d.bins, (size_t)d.nbins, sizeof d.bins[0], by_min);
    split_by_host(db, &d);
    double end = finalize_epoch(db), T = f.run, start = end - T;
    struct record_text j = {.text = text, .cap = RECORD_MAX};
    record_text_open(&j, NULL, '{');
    record_text_string(&j, "schema", "mpilens-summary");
    record_text_int(&j, "version", 1);
    record_text_string(&j, "source", "profile");
    job_and_program(&j, db);
    record_text_int(&j, "ranks", d.ranks);
    record_text_int(&j, "ranks_measured", f.ranks);
    record_text_int(&j, "nodes", d.hosts);
    record_text_open(&j, "ranks_per_node", '{');
    record_text_int(&j, "min", d.rpn_min);
    record_text_int(&j, "max", d.rpn_max);
    record_text_close(&j, '}');
    record_text_string(&j, "first_host", d.first_host);
    record_section_span(&j, start, end);
    record_text_number(&j, "run_seconds", T);
    record_text_string(&j, "clock", lens_tsc_constant() ? "tsc" : "monotonic");
    record_text_number(&j, "mpi_seconds", d.mpi_sum);
    record_text_number(&j, "mpi_share", T > 0 ? d.mpi_sum / (T * f.ranks) : 0);
    record_text_open(&j, "efficiency", '{');
    record_text_number(&j, "load_balance", f.load_balance);
    record_text_number(&j, "communication_efficiency", f.communication);
    record_text_number(&j, "parallel_efficiency", f.parallel);
    record_text_close(&j, '}');
    operations(&j, &d);
    record_text_open(&j, "top_call_sites", '[');
    struct sites sites = {&j, 0};
    rundb_callsites_top(db, -1, TOP + 3, add_site, &sites); /* Init, Init_thread, Finalize */
    record_text_close(&j, ']');
    messages(&j, &d);
    record_text_number(&j, "call_sites_unsampled_seconds", 0);
    record_text_int(&j, "operation_rows_dropped", 0);
    record_text_string(&j, "ended",
                       f.ranks == d.ranks ? "MPI_Finalize" : "exit without MPI_Finalize");
    record_text_close(&j, '}');
    rc = j.failed ? -1 : 0;
    if (rc)
        snprintf(why, len, "its record would be over %d bytes", RECORD_MAX);
done:
    free(d.pairs);
    free(d.ops);
    free(d.host_of);
    return rc;
}

int summary_of_run_write(const char *dir, char *why, size_t len)
{
    char path[PATH_MAX + 32], err[1024];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (access(path, F_OK) == 0)
        return 0; /* the summary module's own record */
    snprintf(path, sizeof path, "%s/mpilens.db", dir);
    sqlite3 *db = NULL;
    if (access(path, F_OK) != 0 || rundb_open_read(path, &db, err, sizeof err) != 0) {
        rundb_close(db);
        return 0;
    }
    int rc = 0;
    if (rundb_profile_has_rows(db)) {
        static char text[RECORD_MAX];
        rc = record_of(db, text, why, len) == 0 &&
                     record_file_write(dir, "summary.json", text, 0, why, len) == 0
                 ? 1
                 : -1;
    }
    rundb_close(db);
    return rc;
}
