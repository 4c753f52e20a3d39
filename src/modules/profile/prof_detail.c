/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_detail.c: how much of each rank's profile is kept, and who writes it.
 *
 * `profile:detail=` (docs/scaling.md): `ranks` keeps every rank's rows in mpilens.db (as
 * mpisee does; rank 0 receives and writes them all); `shards` keeps mpilens.db reduced over
 * ranks (prof_summary.c: what rank 0 receives and writes does not grow with the job) and
 * every rank's rows in shards of `profile:shard=` ranks (default 64), each written by its
 * first rank, all at once (DIR/profile-detail/ranks-FIRST.db: src/db/rundb_detail.c);
 * `summary` keeps only the reduction. `auto`, the default, is `ranks` up to 64 ranks and
 * `shards` beyond. The reduction is written in every case, so readers find it in any run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof.h"
#include "prof_detail.h"
#include "prof_summary.h"
#include "rundb.h"
#include "rundb_read.h"
#include "run_output.h"

#define AUTO_RANKS 64 /* `auto`: every rank's rows in mpilens.db up to this many ranks */

static const char *const names[] = {"ranks", "shards", "summary"};

int prof_detail_check(const char *key, const char *value, char *why, size_t len)
{
    if (strcmp(key, "detail") == 0) {
        if (strcmp(value, "auto") == 0)
            return 0;
        for (int i = 0; i < 3; i++)
            if (strcmp(value, names[i]) == 0)
                return 0;
        snprintf(why, len, "detail=%s: give auto, ranks, shards or summary", value);
        return -1;
    }
    if (strcmp(key, "shard") == 0) {
        char *end;
        long n = strtol(value, &end, 10);
        if (*value && !*end && n >= 1 && n <= 1 << 20)
            return 0;
        snprintf(why, len, "shard=%s: give the ranks per shard, a number from 1 to 1048576", value);
        return -1;
    }
    return 0;
}

enum prof_detail prof_detail_policy(int nranks, int *shard_ranks)
{
    const char *mode = getenv("MPILENS_PROFILE_DETAIL"), *shard = getenv("MPILENS_PROFILE_SHARD");
    *shard_ranks = shard && atoi(shard) > 0 ? atoi(shard) : 64;
    for (int i = 0; mode && i < 3; i++)
        if (strcmp(mode, names[i]) == 0)
            return (enum prof_detail)i;
    return nranks <= AUTO_RANKS ? PROF_DETAIL_RANKS : PROF_DETAIL_SHARDS;
}

/* Writes the shard of ranks FIRST..LAST (SET and SITES hold them, maybe more) into DIR. */
static int write_shard(const char *dir, const struct profile_set *set,
                       const struct prof_sites_blob *sites, int first, int last, int world,
                       int shard_ranks, double wall)
{
    char sub[4200], file[256], path[4500], err[1024] = "";
    snprintf(sub, sizeof sub, "%s/%s", dir, RUNDB_DETAIL_DIR);
    if (mkdir(sub, 0777) != 0 && errno != EEXIST) {
        lens_run_problem("profile",
                         "profile: %s: cannot make the directory of the per-rank detail (%s); "
                         "ranks %d to %d keep their records in %s/partial for `mpilens "
                         "recover %s`",
                         sub, strerror(errno), first, last, dir, dir);
        return -1;
    }
    rundb_shard_file(first, shard_ranks, file, sizeof file);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path); /* a shard of an earlier run in the same directory is not added to */
    struct prof_db_parts p = {.rows = set,
                              .sites = sites,
                              .ranks = set->ranks,
                              .nranks = set->nranks,
                              .first_rank = first,
                              .last_rank = last,
                              .processes = last - first + 1,
                              .detail = "ranks",
                              .shard_of = world};
    if (prof_db_write(dir, file, wall, &p, err, sizeof err) != 0) {
        lens_run_problem("profile",
                         "profile: %s; ranks %d to %d keep their records in %s/partial for "
                         "`mpilens recover %s` once there is room",
                         err, first, last, dir, dir);
        return -1;
    }
    return 0;
}

/* The main database: every rank's rows (SET, SITES) unless NULL, and the reduction. */
static int write_main(const char *dir, enum prof_detail mode, int shard_ranks, int world,
                      const struct profile_set *set, const struct prof_sites_blob *sites,
                      const struct prof_summary *summary,
                      const struct prof_sites_blob *site_summary, double wall)
{
    char err[1024] = "";
    struct prof_db_parts p = {.rows = set,
                              .sites = sites,
                              .summary = summary,
                              .site_summary = site_summary,
                              .ranks = summary->ranks,
                              .nranks = summary->nranks,
                              .first_rank = 0,
                              .last_rank = 1 << 30,
                              .processes = world,
                              .detail = names[mode],
                              .shard_ranks = mode == PROF_DETAIL_SHARDS ? shard_ranks : 0};
    if (prof_db_write(dir, RUNDB_FILE, wall, &p, err, sizeof err) != 0) {
        lens_run_problem("profile",
                         "profile: %s; every rank's record is kept in %s/partial for "
                         "`mpilens recover %s` once there is room",
                         err, dir, dir);
        return -1;
    }
    return 0;
}

int prof_detail_finalize(struct profile_set *set, MPI_Comm comm, double wall)
{
    int rank = 0, size = 1, shard_ranks, ok = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    enum prof_detail mode = prof_detail_policy(size, &shard_ranks);
    const char *dir = lens_run_output_dir();
    struct prof_summary summary;
    struct prof_sites_blob sites = {0}, site_summary = {0};
    if (mode == PROF_DETAIL_RANKS) { /* every row to rank 0, reduced there */
        memset(&summary, 0, sizeof summary);
        int root = prof_tree_merge(set, comm);
        prof_sites_gather(comm, 0, &sites);
        if (root) {
            prof_sites_summarize(&sites, &site_summary);
            ok = prof_summary_of_set(&summary, set) == 0 &&
                 write_main(dir, mode, shard_ranks, size, set, &sites, &summary, &site_summary,
                            wall) == 0;
        }
    } else { /* reduced on the way to rank 0; each shard's rows to its first rank */
        ok = prof_summary_of_set(&summary, set) == 0;
        int leader = 0;
        if (mode == PROF_DETAIL_SHARDS) {
            MPI_Comm shard;
            PMPI_Comm_split(comm, rank / shard_ranks, rank, &shard);
            leader = prof_tree_merge(set, shard);
            prof_sites_gather(shard, 0, &sites);
            PMPI_Comm_free(&shard);
        }
        int root = prof_summary_tree_merge(&summary, comm);
        prof_sites_gather(comm, 1, &site_summary);
        if (leader) {
            int last = rank + shard_ranks - 1 < size - 1 ? rank + shard_ranks - 1 : size - 1;
            ok &= write_shard(dir, set, &sites, rank, last, size, shard_ranks, wall) == 0;
        }
        if (root)
            ok &= write_main(dir, mode, shard_ranks, size, NULL, NULL, &summary, &site_summary,
                             wall) == 0;
    }
    int all = ok;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    free(sites.all);
    free(site_summary.all);
    prof_summary_free(&summary);
    return all;
}

int prof_detail_recovered(const struct profile_set *set, const struct prof_sites_blob *sites,
                          int world, double wall, const char *dir, char *err, size_t errlen)
{
    int shard_ranks;
    enum prof_detail mode = prof_detail_policy(world, &shard_ranks);
    struct prof_summary summary;
    struct prof_sites_blob site_summary;
    if (prof_summary_of_set(&summary, set) != 0) {
        snprintf(err, errlen, "%s: out of memory reducing the profile's rows", dir);
        return -1;
    }
    prof_sites_summarize(sites, &site_summary);
    int rc = 0;
    for (int first = 0; mode == PROF_DETAIL_SHARDS && rc == 0 && first < world;
         first += shard_ranks) {
        int last = first + shard_ranks - 1 < world - 1 ? first + shard_ranks - 1 : world - 1;
        struct prof_sites_blob part;
        prof_sites_subset(sites, first, last, &part);
        rc = write_shard(dir, set, &part, first, last, world, shard_ranks, wall);
        free(part.all);
    }
    struct prof_db_parts p = {.rows = mode == PROF_DETAIL_RANKS ? set : NULL,
                              .sites = mode == PROF_DETAIL_RANKS ? sites : NULL,
                              .summary = &summary,
                              .site_summary = &site_summary,
                              .ranks = set->ranks,
                              .nranks = set->nranks,
                              .first_rank = 0,
                              .last_rank = 1 << 30,
                              .processes = (int)set->nranks,
                              .detail = names[mode],
                              .shard_ranks = mode == PROF_DETAIL_SHARDS ? shard_ranks : 0};
    if (rc != 0)
        snprintf(err, errlen, "%s/%s: a shard of the per-rank detail could not be written", dir,
                 RUNDB_DETAIL_DIR);
    else
        rc = prof_db_write(dir, RUNDB_FILE, wall, &p, err, errlen);
    free(site_summary.all);
    prof_summary_free(&summary);
    return rc;
}
