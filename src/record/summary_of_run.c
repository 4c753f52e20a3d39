/* SPDX-License-Identifier: BSD-3-Clause */
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
#include "record_layout.h"
#include "record_program.h"
#include "run_program.h"
#include "rundb.h"
#include "rundb_read.h"
#include "tick_clock.h"

#define MAX_BINS 64

struct op_total { /* one (operation, communicator class) pair */
    char op[52];  /* "MPI_Send" */
    struct record_op row;
};

struct digest {
    int ranks;
    /* hosts */
    int hosts, rpn_min, rpn_max;
    char first_host[256];
    /* times */
    double mpi_sum;
    /* operations */
    struct op_total *pairs;
    int npairs, cap_pairs;
    /* point-to-point sends */
    long long messages, bytes;
    struct record_bin bins[MAX_BINS];
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

static struct op_total *find_or_add(struct digest *d, const char *op, int comm_size)
{
    for (int i = 0; i < d->npairs; i++)
        if (d->pairs[i].row.comm_size == comm_size && strcmp(d->pairs[i].op + 4, op) == 0)
            return &d->pairs[i];
    if (d->npairs == d->cap_pairs) {
        int grown = d->cap_pairs ? 2 * d->cap_pairs : 64;
        struct op_total *more = realloc(d->pairs, (size_t)grown * sizeof *more);
        if (!more)
            return NULL;
        d->pairs = more, d->cap_pairs = grown;
    }
    struct op_total *t = &d->pairs[d->npairs++];
    memset(t, 0, sizeof *t);
    snprintf(t->op, sizeof t->op, "MPI_%s", op); /* the module's names */
    t->row.comm_size = comm_size;
    return t;
}

static void add_cell(const struct rundb_profile_total *t, void *ctx)
{
    struct digest *d = ctx;
    if (rundb_startup_op(t->op)) /* outside the span the record measures, as the module's */
        return;
    int comm_size = without_comm(t->op, t->kind) ? RECORD_COMM_NONE
                    : t->comm_size == d->ranks && strcmp(t->creator, "MPI_COMM_WORLD") == 0
                        ? RECORD_COMM_WORLD
                        : t->comm_size;
    struct op_total *pair = find_or_add(d, t->op, comm_size);
    if (pair)
        pair->row.calls += (uint64_t)t->calls, pair->row.seconds += t->time;
    if (!is_send(t->op))
        return;
    d->messages += t->calls;
    d->bytes += t->volume;
    int b = 0;
    while (b < d->nbins && d->bins[b].min != (uint64_t)t->bucket_min)
        b++;
    if (b == d->nbins && d->nbins < MAX_BINS)
        d->bins[d->nbins++] =
            (struct record_bin){(uint64_t)t->bucket_min, (uint64_t)t->bucket_max, 0};
    if (b < d->nbins)
        d->bins[b].messages += (uint64_t)t->calls;
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

/* The program's path and build id, the Python script, from the run's command line. */
struct program {
    char path[PATH_MAX], script[PATH_MAX], build_id[RECORD_BUILD_ID_HEX], library[512];
};

static void program_of(sqlite3 *db, struct program *p)
{
    char command[4096] = "";
    rundb_metadata_get(db, "Run command", command, sizeof command);
    run_program_of(command, p->path, sizeof p->path, p->script, sizeof p->script);
    run_program_build_id(p->path, p->build_id);
    p->library[0] = '\0';
    rundb_metadata_get(db, "MPI Library", p->library, sizeof p->library);
    p->library[strcspn(p->library, "\n,")] = '\0'; /* "Open MPI v4.1.4", as the module's */
}

struct sites {
    sqlite3 *db;
    struct record_text *j;
    int written;
};

static void add_site(const struct rundb_callsite *s, void *ctx)
{
    struct sites *sites = ctx;
    if (sites->written == RECORD_TOP)
        return;
    sites->written++;
    char name[64];
    snprintf(name, sizeof name, "MPI_%s", s->operation);
    record_layout_site(sites->j, name, s->file, s->line, s->function, s->object, s->time);
}

static void write_sites(struct record_text *j, void *ctx)
{
    struct sites sites = {ctx, j, 0};
    rundb_callsites_top(sites.db, -1, RECORD_TOP, RUNDB_PROGRAM_CALLS, add_site, &sites);
}

static int by_min(const void *a, const void *b)
{
    const struct record_bin *x = a, *y = b;
    return (x->min > y->min) - (x->min < y->min);
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
    struct record_op *rows = NULL;
    if (rundb_host_counts(db, add_host, &d) < 0 || rundb_rank_times(db, -1, add_rank, &d) != 0 ||
        rundb_profile_totals(db, add_cell, &d) != 0) {
        snprintf(why, len, "cannot read its profile: %s", rundb_errmsg(db));
        goto done;
    }
    qsort(d.bins, (size_t)d.nbins, sizeof d.bins[0], by_min);
    split_by_host(db, &d);
    rows = malloc(2 * (size_t)(d.npairs ? d.npairs : 1) * sizeof *rows);
    if (!rows) {
        snprintf(why, len, "out of memory");
        goto done;
    }
    for (int i = 0; i < d.npairs; i++) {
        rows[i] = d.pairs[i].row;
        rows[i].name = d.pairs[i].op;
    }
    static struct program p;
    program_of(db, &p);
    struct passwd *pw = getpwuid(getuid());
    double end = finalize_epoch(db), T = f.run;
    char run_id[33]; /* each record made is a run of its own to the site store */
    record_random_hex(run_id, 16);
    struct record_facts facts = {
        .source = "profile",
        .user = pw ? pw->pw_name : "",
        .uid = (long long)getuid(),
        .run_id = run_id,
        .path = p.path,
        .build_id = p.build_id,
        .script = p.script,
        .library = p.library,
        .standard = NULL, /* the profile does not record it */
        .ranks = d.ranks,
        .ranks_measured = (uint64_t)f.ranks,
        .nodes = (uint64_t)d.hosts,
        .ranks_per_node_min = d.rpn_min,
        .ranks_per_node_max = d.rpn_max,
        .first_host = d.first_host,
        .start = end - T,
        .end = end,
        .run_seconds = T,
        .clock = lens_tsc_constant() ? "tsc" : "monotonic",
        .mpi_seconds = d.mpi_sum,
        .mpi_share = pop_mpi_share(d.mpi_sum, f.ranks, T),
        .load_balance = f.load_balance,
        .communication_efficiency = f.communication,
        .parallel_efficiency = f.parallel,
        .pairs = rows,
        .scratch = rows + d.npairs,
        .npairs = d.npairs,
        .sites = write_sites,
        .sites_ctx = db,
        .messages = (uint64_t)d.messages,
        .bytes = (uint64_t)d.bytes,
        .split_known = d.split_known,
        .within_messages = (uint64_t)d.split_messages[1],
        .within_bytes = (uint64_t)d.split_bytes[1],
        .between_messages = (uint64_t)d.split_messages[0],
        .between_bytes = (uint64_t)d.split_bytes[0],
        .bins = d.bins,
        .nbins = d.nbins,
        .ended = f.ranks == d.ranks ? "MPI_Finalize" : "exit without MPI_Finalize",
    };
    rc = record_layout_write(&facts, text, RECORD_MAX);
    if (rc)
        snprintf(why, len, "its record would be over %d bytes", RECORD_MAX);
done:
    free(rows);
    free(d.pairs);
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
                     record_file_write(dir, "summary.json", text, 0, why, len) >= 0
                 ? 1
                 : -1;
    }
    rundb_close(db);
    return rc;
}
