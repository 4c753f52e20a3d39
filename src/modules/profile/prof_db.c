/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_db.c: rank 0 writes the merged profile into the run database.
 *
 * Shared tables (metadata, ranks, communicators, buckets, operations) come from
 * src/db/rundb.c; the profile adds its rows (table profile, with the views that give
 * mpisee's schema: src/db/rundb_write.c), the same reduced over ranks (profile_summary) and
 * its call sites, all through src/db's writers, in one transaction. A shard of the
 * per-rank detail (prof_detail.c) is a database of the same form for a block of ranks.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpilens.h"
#include "prof.h"
#include "prof_merge.h"
#include "prof_summary.h"
#include "rundb_write.h"

const char *prof_run_command;

static void command_line(char *out, size_t len)
{
    out[0] = '\0';
    if (prof_run_command) {
        snprintf(out, len, "%s", prof_run_command);
        return;
    }
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i + 1 < n; i++)
        if (out[i] == '\0')
            out[i] = ' ';
}

static int write_metadata(struct rundb *run, const struct prof_db_parts *p, double wall)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "", text[8192], buckets[1024] = "";
    int len = 0;
    PMPI_Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl)
        *nl = '\0';
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %z", localtime(&now));
    for (int b = 0; b < prof_nbuckets - 1; b++)
        snprintf(buckets + strlen(buckets), sizeof buckets - strlen(buckets), "%s%lld",
                 b ? "," : "", (long long)prof_bounds[b]);
    int rc = rundb_put_metadata(run, "MPI Library", version);
    snprintf(text, sizeof text, "%d", p->processes);
    rc |= rundb_put_metadata(run, "Processes", text);
    command_line(text, sizeof text);
    rc |= rundb_put_metadata(run, "Run command", text);
    rc |= rundb_put_metadata(run, "Profile date", date);
    rc |= rundb_put_metadata(run, "mpilens version", MPILENS_VERSION);
    rc |= rundb_put_metadata(run, "mpisee version",
                             "4.1 (schema as written by mpilens " MPILENS_VERSION ")");
    rc |= rundb_put_metadata(run, "Buckets", buckets);
    snprintf(text, sizeof text, "%.6f", wall);
    rc |= rundb_put_metadata(run, "Wall time", text);
    snprintf(text, sizeof text, "%d", RUNDB_SCHEMA_VERSION);
    rc |= rundb_put_metadata(run, "Schema version", text);
    rc |= rundb_put_metadata(run, "Profile detail", p->detail);
    if (p->shard_ranks > 0) {
        snprintf(text, sizeof text, "%d", p->shard_ranks);
        rc |= rundb_put_metadata(run, "Profile shard ranks", text);
    }
    if (p->shard_of) {
        snprintf(text, sizeof text, "ranks %d to %d of %d", p->first_rank, p->last_rank,
                 p->shard_of);
        rc |= rundb_put_metadata(run, "Profile shard", text);
    }
    return rc;
}

static int in_range(const struct prof_db_parts *p, int rank)
{
    return rank >= p->first_rank && rank <= p->last_rank;
}

/* The ranks, buckets and operations; then the communicators of SET into IDS. */
static int write_shared(struct rundb *run, const struct prof_db_parts *p)
{
    int rc = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        const struct wire_rank *r = &p->ranks[i];
        if (in_range(p, r->rank))
            rc |= rundb_put_rank(run, r->rank, r->host, r->net_s, r->mpi_s, r->startup_s);
    }
    for (int b = 0; b < prof_nbuckets; b++) {
        int64_t lo = b == 0 ? 0 : prof_bounds[b - 1] + 1;
        int64_t hi = b == prof_nbuckets - 1 ? 2147483647 : prof_bounds[b];
        rc |= rundb_put_bucket(run, b, lo, hi < lo ? lo : hi);
    }
    for (int op = 0; op < prof_op_count; op++)
        rc |= rundb_put_operation(run, op, prof_ops[op].name, prof_ops[op].kind);
    return rc;
}

static int write_rows(struct rundb *run, const struct prof_db_parts *p)
{
    const struct profile_set *set = p->rows;
    int *ids = calloc(set->comms.ncomms + 1, sizeof *ids);
    if (!ids)
        return -1;
    int rc = lens_comm_set_write(run, &set->comms, ids);
    for (size_t i = 0; i < set->nrows; i++) {
        const struct wire_row *r = &set->rows[i];
        if (in_range(p, r->rank))
            rc |= rundb_put_profile(run, r->rank, ids[r->comm], r->op, r->bucket, (int64_t)r->calls,
                                    r->time_ns * 1e-9, r->max_ns * 1e-9, (int64_t)r->volume);
    }
    free(ids);
    return rc;
}

static int write_summary(struct rundb *run, const struct prof_summary *s)
{
    int *ids = calloc(s->comms.ncomms + 1, sizeof *ids);
    if (!ids)
        return -1;
    int rc = rundb_profile_summary_create(run) | lens_comm_set_write(run, &s->comms, ids);
    for (size_t i = 0; i < s->nrows; i++) {
        const struct summary_row *r = &s->rows[i];
        struct rundb_summary_cell c = {.ranks = r->ranks,
                                       .calls = (int64_t)r->calls,
                                       .volume = (int64_t)r->volume,
                                       .time = r->time_ns * 1e-9,
                                       .time_mean = r->mean_ns * 1e-9,
                                       .time_var = r->ranks ? r->m2_ns / r->ranks * 1e-18 : 0,
                                       .time_min = r->min_ns * 1e-9,
                                       .time_max = r->max_ns * 1e-9,
                                       .max_time = r->longest_ns * 1e-9,
                                       .time_min_rank = r->min_rank,
                                       .time_max_rank = r->max_rank};
        rc |= rundb_put_profile_summary(run, ids[r->comm], r->op, r->bucket, &c);
    }
    free(ids);
    return rc;
}

int prof_db_write(const char *dir, const char *file, double wall, const struct prof_db_parts *p,
                  char *err, size_t errlen)
{
    struct rundb run;
    if (rundb_begin_file(&run, dir, file, err, errlen) != 0)
        return -1;
    int failed = rundb_profile_create(&run) != 0 || write_metadata(&run, p, wall) != 0 ||
                 write_shared(&run, p) != 0 || (p->rows && write_rows(&run, p) != 0) ||
                 (p->summary && write_summary(&run, p->summary) != 0) ||
                 (p->sites && prof_sites_write(&run, p->sites, 0) != 0) ||
                 (p->site_summary && prof_sites_write(&run, p->site_summary, 1) != 0);
    return rundb_finish(&run, failed, "the profile", err, errlen);
}
