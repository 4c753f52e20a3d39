/* SPDX-License-Identifier: BSD-3-Clause */
/* top_sample.c: a sample of a running job for `mpilens top`, from what its ranks save every
 * `--snapshot SECONDS` (DIR/partial/MODULE.RANK, written whole under a temporary name and
 * renamed, so a reader never sees half a file). The view never touches a rank: it copies
 * the profile's and monitor's files into a cache of its own (a rank that has ended keeps
 * its last copy there), merges a copy of the cache into a database with the modules' own
 * recovery (cli_recover_run: the code that finishes an interrupted run), and reads that
 * through src/db. Once the job is over (its claim released and DIR/mpilens.db there), the
 * sample is the run's final database. The interval's figures are the difference of two
 * samples.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mpilens_snapshot.h"
#include "run_claim.h"
#include "rundb.h"
#include "rundb_read.h"
#include "top.h"

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = -1, rc = -1;
    if (in < 0)
        return -1;
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.part", to);
    out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) {
        char buf[65536];
        ssize_t n;
        rc = 0;
        while ((n = read(in, buf, sizeof buf)) > 0)
            if (mpilens_write_all(out, buf, (size_t)n) != 0)
                rc = -1;
        rc |= n < 0 ? -1 : 0;
        rc |= close(out);
        rc = rc == 0 ? rename(tmp, to) : (unlink(tmp), -1);
    }
    close(in);
    return rc;
}

/* MODULE.RANK for the modules the view merges; the rank, or -1. */
static int snapshot_rank(const char *name)
{
    static const char *const modules[] = {"profile.", "monitor."};
    for (int m = 0; m < 2; m++) {
        size_t len = strlen(modules[m]);
        if (strncmp(name, modules[m], len) == 0 && name[len]) {
            char *end;
            long rank = strtol(name + len, &end, 10);
            return *end == '\0' && rank >= 0 && rank < 1 << 24 ? (int)rank : -1;
        }
    }
    return -1;
}

/* The profile's and monitor's snapshot files of FROM copied into TO (made if missing); how
 * many were copied. A file renamed away meanwhile is taken next time. */
static int copy_snapshots(const char *from, const char *to)
{
    mkdir(to, 0755);
    DIR *d = opendir(from);
    if (!d)
        return 0;
    int copied = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (snapshot_rank(e->d_name) >= 0) {
            char a[4600], b[4600];
            snprintf(a, sizeof a, "%s/%s", from, e->d_name);
            snprintf(b, sizeof b, "%s/%s", to, e->d_name);
            copied += copy_file(a, b) == 0;
        }
    closedir(d);
    return copied;
}

/* Each rank's state from the trailers of the cached files (and whether DIR still has it). */
static void rank_states(const char *dir, const char *cache, struct top_sample *s)
{
    char path[4400];
    for (int r = 0; r < s->nranks; r++) {
        struct top_rank *k = &s->ranks[r];
        snprintf(path, sizeof path, "%s/partial/profile.%d", cache, r);
        if (access(path, R_OK) != 0)
            snprintf(path, sizeof path, "%s/partial/monitor.%d", cache, r);
        size_t len;
        char *data = mpilens_snapshot_read(path, &len, k->how, sizeof k->how);
        free(data);
        if (s->ended)
            k->state = TOP_ENDED;
        else if (!data)
            k->state = TOP_NOT_YET;
        else if (strcmp(k->how, MPILENS_SNAPSHOT_FINALIZED) == 0)
            k->state = TOP_ENDED;
        else if (strcmp(k->how, MPILENS_SNAPSHOT_PERIODIC) == 0) {
            char live[4400];
            snprintf(live, sizeof live, "%s/partial/profile.%d", dir, r);
            int gone = access(live, F_OK) != 0;
            snprintf(live, sizeof live, "%s/partial/monitor.%d", dir, r);
            gone &= access(live, F_OK) != 0;
            k->state = gone ? TOP_ENDED : TOP_RUNNING; /* removed at its MPI_Finalize */
        } else
            k->state = TOP_STOPPED;
    }
}

/* ---- reading the merged database ---- */

static int grow(void *ptr, int count, size_t size)
{
    void **at = ptr;
    void *grown = realloc(*at, (size_t)(count + 1) * size);
    if (!grown)
        return -1;
    *at = grown;
    return 0;
}

static void rank_time(int rank, double exec, double mpi, double startup, void *ctx)
{
    struct top_sample *s = ctx;
    if (rank >= 0 && rank < s->nranks) {
        s->ranks[rank].exec = exec;
        s->ranks[rank].run = exec - startup;
        s->ranks[rank].mpi = mpi - startup;
    }
}

static void op_total(const struct rundb_profile_total *t, void *ctx)
{
    struct top_sample *s = ctx;
    if (rundb_startup_op(t->op))
        return;
    s->bytes += t->volume;
    for (int i = 0; i < s->nops; i++)
        if (strcmp(s->ops[i].comm, t->comm) == 0 && strcmp(s->ops[i].op, t->op) == 0) {
            s->ops[i].time += t->time, s->ops[i].calls += t->calls, s->ops[i].volume += t->volume;
            return;
        }
    if (grow(&s->ops, s->nops, sizeof *s->ops) != 0)
        return;
    struct top_op *o = &s->ops[s->nops++];
    memset(o, 0, sizeof *o);
    snprintf(o->comm, sizeof o->comm, "%s", t->comm);
    snprintf(o->op, sizeof o->op, "%s", t->op);
    o->time = t->time, o->calls = t->calls, o->volume = t->volume;
}

static void cell(int src, int dst, long long messages, long long bytes, void *ctx)
{
    (void)messages;
    struct top_sample *s = ctx;
    if (grow(&s->cells, s->ncells, sizeof *s->cells) != 0)
        return;
    s->cells[s->ncells++] = (struct top_cell){src, dst, bytes, 0};
}

static int read_db(const char *path, struct top_sample *s, char *err, size_t errlen)
{
    sqlite3 *db;
    if (rundb_open_read(path, &db, err, errlen) != 0)
        return -1;
    char text[1024];
    s->nranks = rundb_metadata_get(db, "Processes", text, sizeof text) ? atoi(text) : 0;
    if (s->nranks <= 0 && rundb_matrix_has_cells(db))
        s->nranks = rundb_matrix_ranks(db);
    if (rundb_metadata_get(db, "Run command", text, sizeof text))
        cli_program_of(text, s->program, sizeof s->program);
    s->ranks = calloc((size_t)(s->nranks > 0 ? s->nranks : 1), sizeof *s->ranks);
    if (!s->ranks) {
        rundb_close(db);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (rundb_profile_has_rows(db)) {
        rundb_rank_times(db, -1, rank_time, s);
        rundb_profile_totals(db, op_total, s);
    }
    if (rundb_matrix_has_cells(db))
        rundb_matrix_cells(db, "p2p", NULL, cell, s, err, errlen);
    for (int i = 0; !s->ops && i < s->ncells; i++) /* without a profile: the matrix's bytes */
        s->bytes += s->cells[i].bytes;
    rundb_close(db);
    return 0;
}

/* The trace module's event logs so far (DIR/trace/log/RANK.THREAD.events), in records of at least
 * 16 bytes: -1 when the run is not traced. */
static long long trace_log_bytes(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/trace/log", dir);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long long total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char file[4500];
        struct stat st;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (strstr(e->d_name, ".events") && stat(file, &st) == 0)
            total += st.st_size;
    }
    closedir(d);
    return total;
}

/* ---- the difference of two samples ---- */

static void difference(const struct top_sample *prev, struct top_sample *s)
{
    s->interval = prev ? s->at - prev->at : 0; /* the first sample: no rate yet */
    s->d_bytes = s->bytes - (prev ? prev->bytes : 0);
    for (int r = 0; r < s->nranks; r++) {
        const struct top_rank *p = prev && r < prev->nranks ? &prev->ranks[r] : NULL;
        s->ranks[r].d_exec = s->ranks[r].exec - (p ? p->exec : 0);
        s->ranks[r].d_mpi = s->ranks[r].mpi - (p ? p->mpi : 0);
    }
    for (int i = 0; i < s->nops; i++) {
        struct top_op *o = &s->ops[i];
        o->d_time = o->time, o->d_calls = o->calls, o->d_volume = o->volume;
        for (int j = 0; prev && j < prev->nops; j++)
            if (strcmp(prev->ops[j].comm, o->comm) == 0 && strcmp(prev->ops[j].op, o->op) == 0) {
                o->d_time -= prev->ops[j].time, o->d_calls -= prev->ops[j].calls;
                o->d_volume -= prev->ops[j].volume;
            }
    }
    for (int i = 0; i < s->ncells; i++) {
        struct top_cell *c = &s->cells[i];
        c->d_bytes = c->bytes;
        for (int j = 0; prev && j < prev->ncells; j++)
            if (prev->cells[j].src == c->src && prev->cells[j].dst == c->dst)
                c->d_bytes -= prev->cells[j].bytes;
    }
}

/* Merges a copy of CACHE/partial into WORK/mpilens.db with the modules' recovery, quietly:
 * 1, or 0 when the cache holds no snapshot yet, or -1 with ERR. */
static int merge_cache(const char *cache, const char *work, char *err, size_t errlen)
{
    char from[4400], to[4400];
    mkdir(work, 0755);
    snprintf(from, sizeof from, "%s/mpilens.db", work);
    unlink(from);
    snprintf(from, sizeof from, "%s/partial", cache);
    snprintf(to, sizeof to, "%s/partial", work);
    if (copy_snapshots(from, to) == 0)
        return 0;
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, 2);
    int rc = cli_recover_run(work, NULL);
    fflush(stderr);
    if (saved >= 0)
        dup2(saved, 2), close(saved);
    if (null >= 0)
        close(null);
    if (rc < 0)
        snprintf(err, errlen,
                 "the ranks' snapshots could not be merged (mpilens recover %s "
                 "says why)",
                 work);
    return rc < 0 ? -1 : 1;
}

int top_sample_take(const char *dir, const char *cache, const struct top_sample *prev,
                    struct top_sample *s, char *err, size_t errlen)
{
    char db[4400], claim[4400], work[4400];
    snprintf(db, sizeof db, "%s/%s", dir, RUNDB_FILE);
    snprintf(claim, sizeof claim, "%s/%s", dir, LENS_CLAIM_FILE);
    snprintf(work, sizeof work, "%s/merged", cache);
    s->trace_bytes = trace_log_bytes(dir);
    char partial[4400];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    s->ended = access(claim, F_OK) != 0 && (access(db, R_OK) == 0 || access(partial, F_OK) != 0);
    int rc;
    if (s->ended && access(db, R_OK) != 0) { /* over, and no database: traced only */
        s->ranks = calloc(1, sizeof *s->ranks);
        difference(prev, s);
        return 0;
    } else if (s->ended) {
        rc = read_db(db, s, err, errlen);
    } else {
        char live[4400], cached[4400];
        snprintf(live, sizeof live, "%s/partial", dir);
        snprintf(cached, sizeof cached, "%s/partial", cache);
        copy_snapshots(live, cached);
        rc = merge_cache(cache, work, err, errlen);
        if (rc == 0) { /* nothing saved yet: an empty sample */
            s->ranks = calloc(1, sizeof *s->ranks);
            difference(prev, s);
            return 0;
        }
        snprintf(db, sizeof db, "%s/%s", work, RUNDB_FILE);
        rc = rc < 0 ? -1 : read_db(db, s, err, errlen);
    }
    if (rc != 0)
        return -1;
    rank_states(dir, cache, s);
    difference(prev, s);
    return 0;
}

void top_sample_free(struct top_sample *s)
{
    free(s->ranks);
    free(s->ops);
    free(s->cells);
    memset(s, 0, sizeof *s);
}
