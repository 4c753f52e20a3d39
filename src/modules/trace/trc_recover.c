/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_recover.c: the trace of a run that did not reach MPI_Finalize, made after the job
 * by `mpilens run` or `mpilens recover DIR` (no MPI here); also the trace of a complete run
 * traced with convert=after (every rank's file says MPI_Finalize: not marked incomplete,
 * and the function returns 1).
 *
 * Each rank left its event log (DIR/trace/log/RANK.events, written out whenever its buffer
 * filled and at each snapshot) and its local definitions (DIR/partial/trace.RANK, the
 * snapshot). The definitions are merged as rank 0 merges them at MPI_Finalize
 * (trc_defs.c), every log is converted into its rank's OTF2 event file (trc_convert.c:
 * each ends at its last trustworthy event, with its open calls closed there; by several
 * processes at once, convert_all), and the
 * archive is written in DIR/trace, readable by any OTF2 reader. A rank that saved nothing
 * gets an empty event file. The run is marked incomplete in DIR/mpilens.db; `mpilens
 * analyze` refuses such a run (docs/modules.md says why), `mpilens export` draws it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rundb.h"
#include "trc.h"
#include "trc_convert.h"

struct recovery {
    struct trc_merged merged;
    struct trc_rank_map *maps; /* by rank; ids NULL: nothing saved */
    int nranks;
};

static int absorb(void *ctx, const char *data, size_t len, int32_t *world)
{
    struct recovery *r = ctx;
    struct trc_rank_map map;
    if (trc_defs_merge(&r->merged, data, len, &map) != 0) {
        free(map.ids);
        return -1;
    }
    int rank = map.head.rank, n = map.head.world_size;
    if (rank < 0 || rank >= n) {
        free(map.ids);
        return -1; /* damaged: skipped, and said */
    }
    if (n > r->nranks) {
        struct trc_rank_map *grown = realloc(r->maps, (size_t)n * sizeof *r->maps);
        if (!grown) {
            free(map.ids);
            return -1;
        }
        r->maps = grown;
        memset(r->maps + r->nranks, 0, (size_t)(n - r->nranks) * sizeof *r->maps);
        r->nranks = n;
    }
    free(r->maps[rank].ids);
    r->maps[rank] = map;
    *world = n;
    return 0;
}

/* How many processes convert: MPILENS_CONVERT_JOBS, else the processors online; at most
 * one per rank. */
static int converters(int nranks)
{
    const char *env = getenv("MPILENS_CONVERT_JOBS");
    long n = env && atoi(env) > 0 ? atoi(env) : sysconf(_SC_NPROCESSORS_ONLN);
    return (int)(n < 1 ? 1 : n > nranks ? nranks : n);
}

/* Converter W of NW: ranks W, W + NW, ... into an OTF2 archive of its own (DIR/convert.W,
 * the same chunk sizes as the run's archive), whose event files then move into the run's
 * archive (an event file does not depend on its archive). Each rank's events per thread and
 * last time go to RESULTS (shared with the parent): most + 1 numbers a rank. 0 or -1. */
static int convert_share(const char *dir, const struct recovery *r, const uint32_t *nthreads,
                         uint32_t most, int w, int nw, uint64_t *results)
{
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/convert.%d", dir, w);
    OTF2_Archive *archive = trc_archive_open(sub, r->nranks);
    if (!archive)
        return -1;
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    for (int k = w; k < r->nranks; k += nw) {
        uint64_t *mine = results + (size_t)k * (most + 1);
        mine[most] = trc_convert_rank(archive, dir, &r->maps[k], mine);
    }
    trc_otf2_note(OTF2_Archive_CloseEvtFiles(archive));
    trc_otf2_note(OTF2_Archive_Close(archive));
    int rc = 0;
    if (trc_otf2_failed != OTF2_SUCCESS) {
        fprintf(stderr, "mpilens: trace: %s: writing the OTF2 events failed (%s)\n", sub,
                OTF2_Error_GetDescription(trc_otf2_failed));
        rc = -1;
    }
    for (int k = w; rc == 0 && k < r->nranks; k += nw)
        for (uint32_t t = 0; t < nthreads[k]; t++) {
            unsigned long long loc = trc_location(k, t, r->maps[k].first_extra);
            char from[4400], to[4400];
            snprintf(from, sizeof from, "%s/traces/%llu.evt", sub, loc);
            snprintf(to, sizeof to, "%s/traces/%llu.evt", dir, loc);
            if (rename(from, to) != 0) {
                fprintf(stderr, "mpilens: trace: cannot move %s to %s: %s\n", from, to,
                        strerror(errno));
                rc = -1;
            }
        }
    char sub_traces[4400];
    snprintf(sub_traces, sizeof sub_traces, "%s/traces", sub);
    trc_remove_files(sub_traces, 1);
    trc_remove_files(sub, 1);
    return rc;
}

/* Every rank's event logs into the run's archive in DIR, by converters(nranks) processes
 * at once (the ranks convert in parallel at MPI_Finalize; after the job, the CLI does).
 * EVENTS[location] gets each location's event count; returns the last time stamp (on rank
 * 0's clock), or UINT64_MAX with ERR said. */
static uint64_t convert_all(const char *dir, const struct recovery *r, const uint32_t *nthreads,
                            uint32_t most, uint64_t *events, char *err, size_t errlen)
{
    char traces[4300];
    snprintf(traces, sizeof traces, "%s/traces", dir);
    mkdir(traces, 0777);
    size_t bytes = (size_t)r->nranks * (most + 1) * sizeof(uint64_t);
    uint64_t *results =
        mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (results == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot convert the event logs (%s)", dir, strerror(errno));
        return UINT64_MAX;
    }
    int nw = converters(r->nranks), failed = 0;
    pid_t *pids = calloc((size_t)nw, sizeof *pids);
    if (!pids)
        nw = 0, failed = convert_share(dir, r, nthreads, most, 0, 1, results) != 0; /* alone */
    fflush(NULL);
    for (int w = 0; w < nw; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(convert_share(dir, r, nthreads, most, w, nw, results) == 0 ? 0 : 1);
        if (pids[w] < 0 && convert_share(dir, r, nthreads, most, w, nw, results) != 0)
            failed = 1; /* no process to spare: this one converts the share */
    }
    for (int w = 0; w < nw; w++) {
        int status = 0;
        if (pids[w] > 0 && (waitpid(pids[w], &status, 0) != pids[w] || !WIFEXITED(status) ||
                            WEXITSTATUS(status) != 0))
            failed = 1;
    }
    free(pids);
    uint64_t last = 0;
    for (int k = 0; k < r->nranks; k++) {
        const uint64_t *mine = results + (size_t)k * (most + 1);
        for (uint32_t t = 0; t < nthreads[k]; t++)
            events[trc_location(k, t, r->maps[k].first_extra)] = mine[t];
        uint64_t end = trc_root_time(&r->maps[k].head, mine[most]); /* on rank 0's clock */
        last = end > last ? end : last;
    }
    munmap(results, bytes);
    if (failed) {
        snprintf(err, errlen, "%s: converting the event logs to OTF2 failed (see above)", dir);
        return UINT64_MAX;
    }
    return last;
}

__attribute__((visibility("default"))) int mpilens_module_recover(const char *dir, char *err,
                                                                  size_t errlen)
{
    struct recovery r;
    memset(&r, 0, sizeof r);
    struct mpilens_snapshot_endings endings;
    if (mpilens_snapshot_gather(dir, "trace", absorb, &r, &endings) <= 0 || r.nranks == 0) {
        free(r.maps);
        return 0;
    }
    char trace_dir[4200], anchor[4300];
    snprintf(trace_dir, sizeof trace_dir, "%s/trace", dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", trace_dir);
    int rc = -1;
    OTF2_Archive *archive =
        access(anchor, F_OK) == 0 ? NULL : trc_archive_open(trace_dir, r.nranks);
    if (!archive) {
        snprintf(err, errlen, "%s: cannot write the trace (%s); the event logs stay in %s/log",
                 trace_dir,
                 access(anchor, F_OK) == 0 ? "an archive is already there"
                                           : "OTF2 could not create the archive",
                 trace_dir);
        goto done;
    }
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    uint32_t most = 1, *nthreads = calloc((size_t)r.nranks, sizeof *nthreads);
    if (!nthreads) {
        snprintf(err, errlen, "%s: out of memory; the event logs stay in %s/log", trace_dir,
                 trace_dir);
        OTF2_Archive_Close(archive);
        trc_remove_archive(trace_dir);
        goto done;
    }
    for (int k = 0; k < r.nranks; k++) {
        if (!r.maps[k].ids) { /* nothing saved: one empty location, no definitions of its own */
            r.maps[k].head.rank = k;
            r.maps[k].head.world_size = r.nranks;
            r.maps[k].head.time_start = r.merged.t_min;
        }
        nthreads[k] = r.maps[k].head.nthreads ? r.maps[k].head.nthreads : 1;
        most = nthreads[k] > most ? nthreads[k] : most;
    }
    for (int k = 0; k < r.nranks; k++)
        r.maps[k].first_extra = trc_first_extra(k, nthreads, r.nranks);
    uint64_t *events = calloc((size_t)r.nranks * most, sizeof *events);
    uint64_t last = UINT64_MAX;
    if (events)
        last = convert_all(trace_dir, &r, nthreads, most, events, err, errlen);
    else
        snprintf(err, errlen, "%s: out of memory; the event logs stay in %s/log", trace_dir,
                 trace_dir);
    if (last == UINT64_MAX) {
        OTF2_Archive_Close(archive);
        free(events);
        free(nthreads);
        trc_remove_archive(trace_dir);
        goto done;
    }
    r.merged.t_max = last > r.merged.t_max ? last : r.merged.t_max;
    OTF2_Archive_OpenDefFiles(archive);
    uint32_t first_group = trc_defs_first_group(&r.merged);
    for (int k = 0; k < r.nranks; k++)
        for (uint32_t t = 0; t < nthreads[k]; t++)
            trc_defs_write_local(archive, &r.maps[k], t, first_group);
    trc_otf2_note(OTF2_Archive_CloseDefFiles(archive));
    trc_defs_write_global(archive, &r.merged, r.nranks, nthreads, events);
    trc_otf2_note(OTF2_Archive_Close(archive));
    free(events);
    free(nthreads);
    if (trc_otf2_failed != OTF2_SUCCESS) { /* the logs stay for another try */
        snprintf(err, errlen,
                 "%s: writing the OTF2 archive failed (%s); the event logs stay in %s/log for "
                 "`mpilens recover %s` once there is room",
                 trace_dir, OTF2_Error_GetDescription(trc_otf2_failed), trace_dir, dir);
        trc_remove_archive(trace_dir);
        goto done;
    }
    char logs[4300];
    snprintf(logs, sizeof logs, "%s/log", trace_dir);
    trc_remove_files(logs, 1);
    char pending[4300];
    snprintf(pending, sizeof pending, "%s/" MPILENS_TRACE_PENDING, trace_dir);
    unlink(pending); /* the note that the logs wait (a run without mpilens run) */
    if (mpilens_snapshot_all_finalized(&endings)) { /* complete: a deferred conversion */
        rc = 1;
        goto done;
    }
    char db[4300];
    snprintf(db, sizeof db, "%s/%s", dir, RUNDB_FILE);
    struct rundb run; /* a run traced alone has no database yet: the mark needs one */
    if (access(db, F_OK) != 0 &&
        (rundb_begin(&run, dir, err, errlen) != 0 || rundb_commit(&run, err, errlen) != 0))
        goto done;
    rc = mpilens_snapshot_mark_incomplete(dir, &endings, err, errlen);
done:
    for (int k = 0; k < r.nranks; k++)
        free(r.maps[k].ids);
    free(r.maps);
    trc_merged_free(&r.merged);
    mpilens_snapshot_endings_free(&endings);
    return rc;
}
