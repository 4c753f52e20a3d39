/* trc_recover.c: the trace of a run that did not reach MPI_Finalize, made after the job
 * by `mpilens run` or `mpilens recover DIR` (no MPI here); also the trace of a complete run
 * traced with convert=after (every rank's file says MPI_Finalize: not marked incomplete,
 * and the function returns 1).
 *
 * Each rank left its event log (DIR/trace/log/RANK.events, written out whenever its buffer
 * filled and at each snapshot) and its local definitions (DIR/partial/trace.RANK, the
 * snapshot). The definitions are merged as rank 0 merges them at MPI_Finalize
 * (trc_defs.c), every log is converted into its rank's OTF2 event file (trc_convert.c:
 * each ends at its last trustworthy event, with its open calls closed there), and the
 * archive is written in DIR/trace, readable by any OTF2 reader. A rank that saved nothing
 * gets an empty event file. The run is marked incomplete in DIR/mpilens.db; `mpilens
 * analyze` refuses such a run (docs/modules.md says why), `mpilens export` draws it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    if (n > r->nranks) {
        r->maps = realloc(r->maps, (size_t)n * sizeof *r->maps);
        memset(r->maps + r->nranks, 0, (size_t)(n - r->nranks) * sizeof *r->maps);
        r->nranks = n;
    }
    free(r->maps[rank].ids);
    r->maps[rank] = map;
    *world = n;
    return 0;
}

__attribute__((visibility("default"))) int mpilens_module_recover(const char *dir, char *err,
                                                                  size_t errlen)
{
    struct recovery r;
    memset(&r, 0, sizeof r);
    struct lens_snapshot_endings endings;
    if (lens_snapshot_gather(dir, "trace", absorb, &r, &endings) <= 0 || r.nranks == 0) {
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
    for (int k = 0; k < r.nranks; k++) {
        if (!r.maps[k].ids) { /* nothing saved: one empty location, no definitions of its own */
            r.maps[k].head.rank = k;
            r.maps[k].head.world_size = r.nranks;
            r.maps[k].head.time_start = r.merged.t_min;
        }
        nthreads[k] = r.maps[k].head.nthreads ? r.maps[k].head.nthreads : 1;
        most = nthreads[k] > most ? nthreads[k] : most;
    }
    uint64_t *events = calloc((size_t)r.nranks * most, sizeof *events);
    uint64_t *mine = calloc(most, sizeof *mine);
    OTF2_Archive_OpenEvtFiles(archive);
    for (int k = 0; k < r.nranks; k++) {
        r.maps[k].first_extra = trc_first_extra(k, nthreads, r.nranks);
        uint64_t last = trc_convert_rank(archive, trace_dir, &r.maps[k], mine);
        r.merged.t_max = last > r.merged.t_max ? last : r.merged.t_max;
        for (uint32_t t = 0; t < nthreads[k]; t++)
            events[trc_location(k, t, r.maps[k].first_extra)] = mine[t];
    }
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_Archive_OpenDefFiles(archive);
    uint32_t first_group = trc_defs_first_group(&r.merged);
    for (int k = 0; k < r.nranks; k++)
        for (uint32_t t = 0; t < nthreads[k]; t++)
            trc_defs_write_local(archive, &r.maps[k], t, first_group);
    OTF2_Archive_CloseDefFiles(archive);
    trc_defs_write_global(archive, &r.merged, r.nranks, nthreads, events);
    OTF2_Archive_Close(archive);
    free(events);
    free(mine);
    free(nthreads);
    char logs[4300];
    snprintf(logs, sizeof logs, "%s/log", trace_dir);
    trc_remove_files(logs, 1);
    if (lens_snapshot_all_finalized(&endings)) { /* complete: a deferred conversion */
        rc = 1;
        goto done;
    }
    char db[4300];
    snprintf(db, sizeof db, "%s/%s", dir, RUNDB_FILE);
    struct rundb run; /* a run traced alone has no database yet: the mark needs one */
    if (access(db, F_OK) != 0 &&
        (rundb_begin(&run, dir, err, errlen) != 0 || rundb_commit(&run, err, errlen) != 0))
        goto done;
    rc = lens_snapshot_mark_incomplete(dir, &endings, err, errlen);
done:
    for (int k = 0; k < r.nranks; k++)
        free(r.maps[k].ids);
    free(r.maps);
    trc_merged_free(&r.merged);
    lens_snapshot_endings_free(&endings);
    return rc;
}
