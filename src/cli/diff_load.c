/* SPDX-License-Identifier: BSD-3-Clause */
/* diff_load.c: one run of `mpilens diff` read through src/db into entries whose names
 * survive a rerun (diff.h): the profile by (communicator's stable name, operation, size
 * bucket), or by the communicator's creator when the runs differ in ranks; call sites by
 * file:line:function and operation (not by address); matrix cells by (kind, source,
 * destination); wait states by (pattern, region). MPI_Init, MPI_Init_thread and
 * MPI_Finalize are left out everywhere: their time is the launcher's and the machine's,
 * not the program's, and varies more than anything the program does.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "report.h"
#include "rundb.h"
#include "rundb_read.h"

int diff_add(struct diff *d, int section, int run, const char *what, const char *l0, const char *l1,
             const char *l2, const char *unit, double value, double count)
{
    if (d->nentries == d->capacity) {
        int cap = d->capacity ? 2 * d->capacity : 1024;
        struct diff_entry *grown = realloc(d->entries, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        d->entries = grown;
        d->capacity = cap;
    }
    struct diff_entry *e = &d->entries[d->nentries++];
    e->section = section;
    e->run = run;
    snprintf(e->what, sizeof e->what, "%s", what);
    snprintf(e->label[0], sizeof e->label[0], "%s", l0 ? l0 : "");
    snprintf(e->label[1], sizeof e->label[1], "%s", l1 ? l1 : "");
    snprintf(e->label[2], sizeof e->label[2], "%s", l2 ? l2 : "");
    snprintf(e->unit, sizeof e->unit, "%s", unit);
    e->value = value;
    e->count = count;
    return 0;
}

/* What one run's reading collects besides its entries. */
struct reading {
    struct diff *d;
    int run, failed;
    double mpi, longest, volume, matrix_bytes, waiting;
};

static void add(struct reading *r, int section, const char *what, const char *l0, const char *l1,
                const char *l2, const char *unit, double value, double count)
{
    if (diff_add(r->d, section, r->run, what, l0, l1, l2, unit, value, count) != 0)
        r->failed = 1;
}

static void rank_time(int rank, double exec, double mpi, double startup, void *ctx)
{
    (void)rank;
    struct reading *r = ctx;
    r->mpi += mpi - startup;
    if (exec > r->longest)
        r->longest = exec;
}

static void profile_total(const struct rundb_profile_total *t, void *ctx)
{
    struct reading *r = ctx;
    if (rundb_startup_op(t->op))
        return;
    char what[320], comm[128], bucket[32];
    report_bucket_label(t->bucket_min, t->bucket_max, bucket, sizeof bucket);
    const char *creator = strncmp(t->creator, "MPI_", 4) == 0 ? t->creator + 4 : t->creator;
    if (r->d->same_ranks) {
        snprintf(what, sizeof what, "%s|%s|%d", t->comm, t->op, t->bucket);
        snprintf(comm, sizeof comm, "%s (%d ranks)", t->comm, t->comm_size);
    } else { /* per communicator role: every communicator its creator made, summed */
        snprintf(what, sizeof what, "%s|%s|%d", t->creator, t->op, t->bucket);
        snprintf(comm, sizeof comm, "every %s",
                 strcmp(t->creator, "MPI_COMM_WORLD") == 0 ? "MPI_COMM_WORLD" : creator);
    }
    add(r, DIFF_PROFILE, what, comm, t->op, bucket, "s", t->time, (double)t->calls);
    r->volume += (double)t->volume;
}

static void callsite(const struct rundb_callsite *c, void *ctx)
{
    struct reading *r = ctx;
    if (rundb_startup_op(c->operation))
        return;
    const char *file = c->file ? c->file : "?", *slash = strrchr(file, '/');
    char what[320], where[128];
    snprintf(what, sizeof what, "%s:%d:%s|%s", file, c->line, c->function ? c->function : "?",
             c->operation);
    snprintf(where, sizeof where, "%s (%s:%d)", c->function ? c->function : "?",
             slash ? slash + 1 : file, c->line);
    add(r, DIFF_SITES, what, where, c->operation, "", "s", c->time, (double)c->calls);
}

struct cell_ctx {
    struct reading *r;
    const char *kind;
};

static void matrix_cell(int src, int dst, long long messages, long long bytes, void *ctx)
{
    struct cell_ctx *c = ctx;
    char what[64], pair[64];
    snprintf(what, sizeof what, "%s|%d|%d", c->kind, src, dst);
    snprintf(pair, sizeof pair, "%d -> %d", src, dst);
    add(c->r, DIFF_MATRIX, what, c->kind, pair, "", "B", (double)bytes, (double)messages);
    c->r->matrix_bytes += (double)bytes;
}

static void wait_cell(const char *pattern, const char *region, int rank, double seconds, void *ctx)
{
    (void)rank; /* summed over ranks: entries of one key and run add up (diff_judge.c) */
    struct reading *r = ctx;
    char what[320];
    snprintf(what, sizeof what, "%s|%s", pattern, region ? region : "");
    add(r, DIFF_WAITS, what, pattern, region ? region : "", "", "s", seconds, 0);
}

static void wait_pattern(const char *pattern, double seconds, void *ctx)
{
    (void)pattern;
    ((struct reading *)ctx)->waiting += seconds;
}

int diff_open_run(struct diff *d, int run, const char *arg)
{
    struct diff_run *r = &d->runs[run];
    char err[1024];
    snprintf(r->path, sizeof r->path, "%s", arg);
    if (cli_is_directory(arg))
        snprintf(r->path, sizeof r->path, "%s/%s", arg, RUNDB_FILE);
    sqlite3 *db;
    if (rundb_open_read(r->path, &db, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: diff: %s\n", err);
        return 2;
    }
    char text[64];
    r->has_profile = rundb_profile_has_rows(db);
    r->has_matrix = rundb_matrix_has_cells(db);
    r->has_waits = rundb_table_has_rows(db, "waits");
    r->has_sites = rundb_table_has_rows(db, "callsite_profile") ||
                   rundb_table_has_rows(db, "callsite_summary");
    rundb_metadata_get(db, "Run command", r->command, sizeof r->command);
    rundb_metadata_get(db, "Incomplete", r->incomplete, sizeof r->incomplete);
    cli_program_of(r->command, r->program, sizeof r->program);
    r->processes = rundb_metadata_get(db, "Processes", text, sizeof text) ? atoi(text) : 0;
    if (r->processes <= 0 && r->has_matrix)
        r->processes = rundb_matrix_ranks(db);
    rundb_close(db);
    if (!r->has_profile && !r->has_matrix && !r->has_waits) {
        fprintf(stderr,
                "mpilens: diff: %s holds neither a profile, a matrix nor wait states; run with "
                "-m profile, -m monitor or -m trace (then mpilens analyze)\n",
                r->path);
        return 2;
    }
    return 0;
}

int diff_read_run(struct diff *d, int run)
{
    struct diff_run *info = &d->runs[run];
    sqlite3 *db;
    char err[1024];
    if (rundb_open_read(info->path, &db, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: diff: %s\n", err);
        return 2;
    }
    struct reading r = {.d = d, .run = run};
    int rc = 0;
    if (info->has_profile) {
        rc |= rundb_rank_times(db, -1, rank_time, &r);
        rc |= rundb_profile_totals(db, profile_total, &r);
        char wall[64];
        double longest = rundb_metadata_get(db, "Wall time", wall, sizeof wall) ? atof(wall) : 0;
        add(&r, DIFF_OVERALL, "wall", "wall time", "", "", "s", longest > 0 ? longest : r.longest,
            0);
        add(&r, DIFF_OVERALL, "mpi_time", "MPI time (ranks summed)", "", "", "s", r.mpi, 0);
        struct pop_factors e; /* the POP metrics, in percent (docs/efficiency.md) */
        int have_eff = pop_run_factors(db, &e) == 0;
        add(&r, DIFF_OVERALL, "mpi_share", "MPI share", "", "", "%",
            have_eff ? 100 * e.mpi_share : 0, 0);
        if (have_eff) {
            add(&r, DIFF_OVERALL, "parallel_efficiency", "parallel efficiency", "", "", "%",
                100 * e.parallel, 0);
            add(&r, DIFF_OVERALL, "load_balance", "load balance", "", "", "%", 100 * e.load_balance,
                0);
            add(&r, DIFF_OVERALL, "communication_efficiency", "communication efficiency", "", "",
                "%", 100 * e.communication, 0);
        }
    }
    if (info->has_sites)
        rc |= rundb_callsites_top(db, -1, INT_MAX, RUNDB_ALL_CALLS, callsite, &r);
    if (info->has_matrix && d->same_ranks) {
        char kinds[256];
        rundb_matrix_kinds(db, kinds, sizeof kinds);
        static const char *const all[] = {"p2p", "coll", "rma"};
        for (int k = 0; k < 3; k++) {
            if (!strstr(kinds, all[k]))
                continue;
            struct cell_ctx c = {&r, all[k]};
            rc |= rundb_matrix_cells(db, all[k], NULL, matrix_cell, &c, err, sizeof err);
        }
    }
    if (info->has_profile || info->has_matrix)
        add(&r, DIFF_OVERALL, "bytes", info->has_profile ? "bytes (profile)" : "bytes (matrix)", "",
            "", "B", info->has_profile ? r.volume : r.matrix_bytes, 0);
    if (info->has_waits) {
        rc |= rundb_waits_top(db, -1, INT_MAX, wait_cell, &r);
        rc |= rundb_waits_by_pattern(db, -1, wait_pattern, &r);
        add(&r, DIFF_OVERALL, "waits", "waiting (wait states)", "", "", "s", r.waiting, 0);
    }
    rundb_close(db);
    if (r.failed || rc != 0) {
        fprintf(stderr, "mpilens: diff: %s: %s\n", info->path,
                r.failed ? "out of memory" : "cannot be read (damaged?)");
        return 2;
    }
    int a = run < d->na, n = a ? d->na : d->nb; /* each side's mean */
    *(a ? &d->mpi_a : &d->mpi_b) += r.mpi / n;
    *(a ? &d->bytes_a : &d->bytes_b) += r.matrix_bytes / n;
    return 0;
}
