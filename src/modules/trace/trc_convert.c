/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_convert.c: a rank's event log (trc_log.h) turned into its OTF2 event file, at
 * MPI_Finalize by the rank itself or by `mpilens recover` for every rank after a run that
 * did not reach it.
 *
 * Every record is checked before it is written: a known kind, a time stamp not before the
 * previous one, ids that the rank's saved definitions cover, a Leave that closes the
 * innermost open region. The log of a rank that was stopped ends at the last record that
 * passes (a record cut short by SIGKILL, or events newer than the last saved definitions);
 * regions still open there are left at the last time stamp, so that OTF2 readers see
 * whole calls. OTF2 writes through a bounded pool (2 chunks per buffer), flushing to disk
 * when it is used up, so converting a long log takes no more memory than a short one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_defs.h"
#include "trc.h"
#include "trc_convert.h"
#include "trc_log.h"

#define POOL_CHUNKS 2

struct pool {
    void *chunks[POOL_CHUNKS];
    int n;
};

static void *pool_allocate(void *user, OTF2_FileType type, OTF2_LocationRef location,
                           void **per_buffer, uint64_t size)
{
    (void)user, (void)type, (void)location;
    struct pool *p = *per_buffer;
    if (!p && !(p = *per_buffer = calloc(1, sizeof *p)))
        return NULL;
    if (p->n == POOL_CHUNKS)
        return NULL; /* OTF2 flushes the buffer, frees the chunks and asks again */
    void *chunk = malloc(size);
    if (chunk)
        p->chunks[p->n++] = chunk;
    return chunk;
}

static void pool_free_all(void *user, OTF2_FileType type, OTF2_LocationRef location,
                          void **per_buffer, bool final)
{
    (void)user, (void)type, (void)location;
    struct pool *p = *per_buffer;
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        free(p->chunks[i]);
    p->n = 0;
    if (final) {
        free(p);
        *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks pool_callbacks = {pool_allocate, pool_free_all};

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
    (void)user, (void)type, (void)location;
    return trc_clock_ns();
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

OTF2_Archive *trc_archive_open(const char *dir, int nranks)
{
    OTF2_Archive *a =
        OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (a) {
        OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
        OTF2_Archive_SetMemoryCallbacks(a, &pool_callbacks, NULL);
        OTF2_Archive_SetProperty(a, MPILENS_TRACE_FORMAT_PROPERTY, MPILENS_TRACE_FORMAT, true);
        char ranks[32];
        snprintf(ranks, sizeof ranks, "%d", nranks);
        OTF2_Archive_SetProperty(a, MPILENS_TRACE_RANKS_PROPERTY, ranks, true);
        const char *launcher = getenv("MPILENS_LAUNCHER"); /* set by mpilens run */
        if (launcher && *launcher)
            OTF2_Archive_SetProperty(a, MPILENS_TRACE_LAUNCHER_PROPERTY, launcher, true);
    }
    return a;
}

/* ---- one record ---- */

struct state {
    OTF2_EvtWriter *w;
    const struct trc_defs_head *h;
    double ns_per_tick;
    uint64_t last_log; /* the last record's time in the log's clock (ticks or ns) */
    uint64_t last;     /* ... in ns */
    uint32_t stack[256];
    int depth;
};

/* The open regions: whether REGION is one the rank defined, whether one more can open,
 * whether REGION is the innermost open one (what a Leave of it needs), and opening and
 * closing one at time T, for Enter and Leave records and for the Enter or Leave a long
 * record carries (trc_log.h). */
static int region_known(const struct state *s, uint64_t region)
{
    return region < R_REGIONS + s->h->nnames;
}
static int can_enter(const struct state *s)
{
    return s->depth < (int)(sizeof s->stack / sizeof *s->stack);
}
static int can_leave(const struct state *s, uint32_t region)
{
    return s->depth > 0 && s->stack[s->depth - 1] == region;
}
static void enter_region(struct state *s, OTF2_TimeStamp t, uint32_t region)
{
    s->stack[s->depth++] = region;
    OTF2_EvtWriter_Enter(s->w, NULL, t, region);
}
static void leave_region(struct state *s, OTF2_TimeStamp t, uint32_t region)
{
    s->depth--;
    OTF2_EvtWriter_Leave(s->w, NULL, t, region);
}

/* 1 if the ids of record R lie within what the rank defined. */
static int ids_known(const struct state *s, const struct trc_record *r)
{
    const struct trc_defs_head *h = s->h;
    switch (r->kind) {
    case TK_ENTER:
    case TK_LEAVE:
        return region_known(s, r->a);
    case TK_MPI_SEND:
    case TK_MPI_ISEND:
    case TK_MPI_RECV:
    case TK_MPI_IRECV:
    case TK_COLL_END:
    case TK_NBC_REQUEST:
    case TK_NBC_COMPLETE:
        return r->b < h->ncomms;
    case TK_RMA_WIN_CREATE:
    case TK_RMA_WIN_DESTROY:
    case TK_RMA_COLL_END:
    case TK_RMA_ACQUIRE_LOCK:
    case TK_RMA_RELEASE_LOCK:
    case TK_RMA_SYNC:
    case TK_RMA_PUT:
    case TK_RMA_GET:
    case TK_RMA_ATOMIC:
        return r->a < h->nwindows;
    case TK_RMA_GROUP_SYNC:
        return r->a < h->nwindows && r->b < h->ngroups;
    case TK_IO_CREATE:
    case TK_IO_DESTROY:
    case TK_IO_BEGIN:
    case TK_IO_ISSUED:
    case TK_IO_COMPLETE:
        return r->a < h->nfiles;
    default:
        return 1;
    }
}

/* Writes R; 0, or -1 where the log stops being trustworthy. */
static int convert_one(struct state *s, const struct trc_record *r)
{
    if (r->kind >= TK_KINDS || r->time < s->last_log || !ids_known(s, r))
        return -1;
    /* a long record may carry its call's Enter before it or its Leave after it (trc_log.h) */
    unsigned flags = r->flags;
    uint32_t region = (uint32_t)r->z;
    if (flags) { /* checked whole before anything of the record is written */
        int entering = (flags & TRC_WITH_ENTER) != 0;
        if ((flags & ~(TRC_WITH_ENTER | TRC_WITH_LEAVE)) || trc_record_size(r->kind) != TRC_LONG ||
            !region_known(s, r->z) || (entering && !can_enter(s)) ||
            ((flags & TRC_WITH_LEAVE) && !entering && !can_leave(s, region)))
            return -1;
    }
    OTF2_EvtWriter *w = s->w;
    OTF2_TimeStamp t = trc_time_ns(s->h, s->ns_per_tick, r->time);
    s->last_log = r->time;
    s->last = t;
    if (flags & TRC_WITH_ENTER)
        enter_region(s, t, region);
    switch ((enum trc_kind)r->kind) {
    case TK_ENTER:
        if (!can_enter(s))
            return -1;
        enter_region(s, t, r->a);
        break;
    case TK_LEAVE:
        if (!can_leave(s, r->a))
            return -1;
        leave_region(s, t, r->a);
        break;
    case TK_MPI_SEND:
        OTF2_EvtWriter_MpiSend(w, NULL, t, r->a, r->b, r->c, r->x);
        break;
    case TK_MPI_ISEND:
        OTF2_EvtWriter_MpiIsend(w, NULL, t, r->a, r->b, r->c, r->x, r->y);
        break;
    case TK_MPI_ISEND_DONE:
        OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, r->y);
        break;
    case TK_MPI_IRECV_REQUEST:
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, r->y);
        break;
    case TK_MPI_RECV:
        OTF2_EvtWriter_MpiRecv(w, NULL, t, r->a, r->b, r->c, r->x);
        break;
    case TK_MPI_IRECV:
        OTF2_EvtWriter_MpiIrecv(w, NULL, t, r->a, r->b, r->c, r->x, r->y);
        break;
    case TK_COLL_BEGIN:
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
        break;
    case TK_COLL_END:
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, r->op, r->b, r->a, r->x, r->y);
        break;
    case TK_RMA_WIN_CREATE:
        OTF2_EvtWriter_RmaWinCreate(w, NULL, t, r->a);
        break;
    case TK_RMA_WIN_DESTROY:
        OTF2_EvtWriter_RmaWinDestroy(w, NULL, t, r->a);
        break;
    case TK_RMA_COLL_BEGIN:
        OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t);
        break;
    case TK_RMA_COLL_END:
        OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t, r->op, r->c, r->a, r->b, r->x, r->y);
        break;
    case TK_RMA_GROUP_SYNC:
        OTF2_EvtWriter_RmaGroupSync(w, NULL, t, r->c, r->a, r->b);
        break;
    case TK_RMA_ACQUIRE_LOCK:
        OTF2_EvtWriter_RmaAcquireLock(w, NULL, t, r->a, r->b, r->x, r->op);
        break;
    case TK_RMA_RELEASE_LOCK:
        OTF2_EvtWriter_RmaReleaseLock(w, NULL, t, r->a, r->b, r->x);
        break;
    case TK_RMA_SYNC:
        OTF2_EvtWriter_RmaSync(w, NULL, t, r->a, r->b, r->op);
        break;
    case TK_RMA_PUT:
        OTF2_EvtWriter_RmaPut(w, NULL, t, r->a, r->b, r->x, r->y);
        break;
    case TK_RMA_GET:
        OTF2_EvtWriter_RmaGet(w, NULL, t, r->a, r->b, r->x, r->y);
        break;
    case TK_RMA_ATOMIC:
        OTF2_EvtWriter_RmaAtomic(w, NULL, t, r->a, r->b, r->op, r->x, r->y, r->z);
        break;
    case TK_NBC_REQUEST: {
        /* OTF2's request event carries only the id: the collective, its communicator and
         * root ride along as attributes (trace_defs.h), so a replay can start it in order */
        OTF2_AttributeList *al = OTF2_AttributeList_New();
        OTF2_AttributeList_AddCommRef(al, TRACE_ATTR_NBC_COMM, r->b);
        OTF2_AttributeList_AddUint32(al, TRACE_ATTR_NBC_OP, r->op);
        OTF2_AttributeList_AddUint32(al, TRACE_ATTR_NBC_ROOT, r->a);
        OTF2_EvtWriter_NonBlockingCollectiveRequest(w, al, t, r->y);
        OTF2_AttributeList_Delete(al);
        break;
    }
    case TK_IO_CREATE:
        OTF2_EvtWriter_IoCreateHandle(w, NULL, t, r->a, r->op, r->c, OTF2_IO_STATUS_FLAG_NONE);
        break;
    case TK_IO_DESTROY:
        OTF2_EvtWriter_IoDestroyHandle(w, NULL, t, r->a);
        break;
    case TK_IO_BEGIN:
        OTF2_EvtWriter_IoOperationBegin(w, NULL, t, r->a, r->op, r->c, r->x, r->y);
        break;
    case TK_IO_ISSUED:
        OTF2_EvtWriter_IoOperationIssued(w, NULL, t, r->a, r->y);
        break;
    case TK_IO_COMPLETE:
        OTF2_EvtWriter_IoOperationComplete(w, NULL, t, r->a, r->x, r->y);
        break;
    case TK_NBC_COMPLETE:
        OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, t, r->op, r->b, r->a, r->x, r->y,
                                                     r->z);
        break;
    case TK_KINDS:
        return -1;
    }
    if (flags & TRC_WITH_LEAVE)
        leave_region(s, t, region);
    return 0;
}

int trc_convert(OTF2_EvtWriter *w, const char *log_path, const struct trc_defs_head *h,
                struct trc_convert_result *res)
{
    memset(res, 0, sizeof *res);
    FILE *f = fopen(log_path, "rb");
    if (!f)
        return -1;
    struct state s = {.w = w, .h = h, .ns_per_tick = trc_ns_per_tick(h)};
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK); /* records stay 8-byte aligned in it: their sizes are 16, 48 */
    if (!buf) {
        fclose(f);
        return -1; /* as a log that cannot be read: the logs stay for mpilens recover */
    }
    size_t have = 0, n;
    int stopped = 0;
    while (!stopped && (n = fread(buf + have, 1, CHUNK - have, f)) > 0) {
        have += n;
        size_t at = 0;
        while (at + TRC_SHORT <= have) {
            const struct trc_record *r = (const void *)(buf + at);
            size_t size = trc_record_size(r->kind);
            if (at + size > have)
                break;
            if (convert_one(&s, r) != 0) { /* (a short record's other fields are not read) */
                stopped = 1;
                break;
            }
            at += size;
            res->bytes += size;
        }
        memmove(buf, buf + at, have - at);
        have -= at;
    }
    res->damaged = stopped || have > 0;
    fclose(f);
    free(buf);
    res->open_regions = s.depth;
    while (s.depth > 0) /* a stopped rank's calls end where its log ends */
        leave_region(&s, s.last, s.stack[s.depth - 1]);
    res->last_time = s.last;
    return 0;
}

uint64_t trc_convert_rank(OTF2_Archive *archive, const char *dir, const struct trc_rank_map *map,
                          uint64_t *events)
{
    const struct trc_defs_head *h = &map->head;
    uint64_t last = 0;
    for (uint32_t t = 0; t < (h->nthreads ? h->nthreads : 1); t++) {
        OTF2_EvtWriter *w =
            OTF2_Archive_GetEvtWriter(archive, trc_location(h->rank, t, map->first_extra));
        char path[4300];
        trc_log_path(path, sizeof path, dir, h->rank, t);
        struct trc_convert_result res;
        if (h->nthreads && trc_convert(w, path, h, &res) == 0) {
            if (res.last_time > last)
                last = res.last_time;
            if (res.damaged && h->time_end) /* a complete run: said; a stopped one: expected */
                fprintf(stderr,
                        "mpilens: trace: rank %d: %s: the event log is damaged after %llu "
                        "bytes; the events before are kept\n",
                        h->rank, path, (unsigned long long)res.bytes);
        }
        events[t] = 0;
        OTF2_EvtWriter_GetNumberOfEvents(w, &events[t]);
        trc_otf2_note(OTF2_Archive_CloseEvtWriter(archive, w));
        /* the log stays until the archive is closed without error: its caller removes it */
    }
    return last;
}

OTF2_ErrorCode trc_otf2_failed = OTF2_SUCCESS;

OTF2_ErrorCode trc_otf2_note(OTF2_ErrorCode rc)
{
    if (rc != OTF2_SUCCESS && trc_otf2_failed == OTF2_SUCCESS)
        trc_otf2_failed = rc;
    return rc;
}
