/* SPDX-License-Identifier: BSD-3-Clause */
/* export.c: `mpilens export RUN --chrome out.json`: a run's OTF2 trace as Chrome trace
 * events (Perfetto UI, chrome://tracing): one row per rank, MPI calls as slices, messages as
 * flow arrows from send to receive, and wait states as marked slices: every wait interval
 * of every pattern when `mpilens analyze` ran (table wait_intervals of the run database),
 * else the Late Sender waits found here (a receive entered before its message was sent).
 * Read with OTF2's own reader, serially.
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rundb.h"
#include "rundb_read.h"
#include "trace_defs.h"
#include "trace_reader.h"

static const char usage[] =
    "usage: mpilens export RUN --chrome OUT.json\n"
    "\n"
    "Writes the trace of a run (module `trace`: RUN/trace/traces.otf2) in the Chrome trace\n"
    "event format: open OUT.json in https://ui.perfetto.dev or chrome://tracing. One row per\n"
    "rank, MPI calls as slices, messages as arrows (each end's args: communicator, from\n"
    "and to as world ranks, tag, bytes), wait states marked: all of them when\n"
    "`mpilens analyze RUN` ran first, else the Late Sender waits. A trace whose event logs\n"
    "wait for their conversion (RUN/trace/CONVERT-PENDING: a run without mpilens run) is\n"
    "converted first, as `mpilens recover RUN` does.\n";

struct state {
    FILE *out;
    struct trace_defs defs; /* the global definitions (src/common/trace_defs.h) */
    uint64_t enter_time[4096];
    struct message { /* a send waiting for its receive (id != 0), or the reverse */
        uint32_t comm, tag;
        uint64_t src, dst, time, id, entered, bytes;
        int blocking;
    } * inflight;
    size_t ninflight;
    uint64_t next_flow, events;
    long analyzed; /* wait intervals marked from the analysis (then none computed here) */
};

static void state_free(struct state *s)
{
    trace_defs_free(&s->defs);
    free(s->inflight);
}

/* A name as a JSON string body: quotes, backslashes and control characters escaped. */
static void put_json_name(FILE *out, const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
}

/* The name of region ID, or "?" if it is not defined. */
static const char *region_name(const struct state *s, uint32_t id)
{
    const struct trace_defs *d = &s->defs;
    return id < d->nregions && d->regions[id].defined ? trace_defs_string(d, d->regions[id].name)
                                                      : "?";
}

/* World rank (location) of rank r of communicator comm. */
static uint64_t world(const struct state *s, uint32_t comm, uint32_t r)
{
    const struct trace_defs *d = &s->defs;
    uint32_t n = 0;
    const uint64_t *members = comm < d->ncomms && d->comms[comm].defined
                                  ? trace_defs_group(d, d->comms[comm].group, &n)
                                  : NULL;
    return members && r < n ? members[r] : r;
}

/* Microseconds since the trace began, on rank 0's clock (OTF2's reader applied the ranks'
 * ClockOffset records, read with their local definitions). */
static double us(const struct state *s, uint64_t t)
{
    return ((double)t - (double)s->defs.clock_offset) / 1000.0;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)a;
    struct state *s = u;
    if (loc < 4096)
        s->enter_time[loc] = t;
    fprintf(s->out, ",\n{\"name\":\"");
    put_json_name(s->out, region_name(s, region));
    fprintf(s->out, "\",\"ph\":\"B\",\"ts\":%.3f,\"pid\":0,\"tid\":%llu}", us(s, t),
            (unsigned long long)loc);
    s->events++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)a;
    struct state *s = u;
    fprintf(s->out, ",\n{\"name\":\"");
    put_json_name(s->out, region_name(s, region));
    fprintf(s->out, "\",\"ph\":\"E\",\"ts\":%.3f,\"pid\":0,\"tid\":%llu}", us(s, t),
            (unsigned long long)loc);
    return OTF2_CALLBACK_SUCCESS;
}

/* A message's facts as the event's args: its communicator (by the name the trace gives it),
 * the world ranks it went between, its tag and bytes. */
static void message_args(struct state *s, uint32_t comm, uint64_t src, uint64_t dst, uint32_t tag,
                         uint64_t bytes)
{
    const struct trace_defs *d = &s->defs;
    fputs(",\"args\":{\"communicator\":\"", s->out);
    put_json_name(s->out, comm < d->ncomms && d->comms[comm].defined
                              ? trace_defs_string(d, d->comms[comm].name)
                              : "?");
    fprintf(s->out, "\",\"from\":%llu,\"to\":%llu,\"tag\":%u,\"bytes\":%llu}",
            (unsigned long long)src, (unsigned long long)dst, tag, (unsigned long long)bytes);
}

/* Sends and receives are matched by (communicator, source, destination, tag) in order,
 * whichever the reader meets first (clocks of different hosts may disagree slightly). */
static void arrow(struct state *s, uint64_t id, uint64_t send_time, const struct message *m,
                  uint64_t recv_time, uint64_t entered, int blocking)
{
    uint64_t dst = m->dst;
    fprintf(s->out,
            ",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\","
            "\"id\":%llu,\"ts\":%.3f,\"pid\":0,\"tid\":%llu",
            (unsigned long long)id, ((double)recv_time - (double)s->defs.clock_offset) / 1000.0,
            (unsigned long long)dst);
    message_args(s, m->comm, m->src, m->dst, m->tag, m->bytes);
    fputc('}', s->out);
    if (blocking && send_time > entered && !s->analyzed)
        fprintf(s->out,
                ",\n{\"name\":\"Late Sender\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":%.3f,"
                "\"dur\":%.3f,\"pid\":0,\"tid\":%llu,\"cname\":\"terrible\"}",
                ((double)entered - (double)s->defs.clock_offset) / 1000.0,
                (send_time - entered) / 1000.0, (unsigned long long)dst);
}

static void sent(struct state *s, OTF2_LocationRef loc, OTF2_TimeStamp t, uint32_t receiver,
                 OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
    uint64_t id = ++s->next_flow, dst = world(s, comm, receiver), when = t;
    fprintf(s->out,
            ",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":%llu,"
            "\"ts\":%.3f,\"pid\":0,\"tid\":%llu",
            (unsigned long long)id, ((double)when - (double)s->defs.clock_offset) / 1000.0,
            (unsigned long long)loc);
    message_args(s, comm, loc, dst, tag, bytes);
    fputc('}', s->out);
    for (size_t i = 0; i < s->ninflight; i++) { /* a receive met first */
        struct message m = s->inflight[i];
        if (m.id == 0 && m.comm == comm && m.src == loc && m.dst == dst && m.tag == tag) {
            memmove(s->inflight + i, s->inflight + i + 1,
                    (s->ninflight - i - 1) * sizeof *s->inflight);
            s->ninflight--;
            m.bytes = bytes;
            arrow(s, id, when, &m, m.time, m.entered, m.blocking);
            return;
        }
    }
    s->inflight = realloc(s->inflight, (s->ninflight + 1) * sizeof *s->inflight);
    s->inflight[s->ninflight++] = (struct message){comm, tag, loc, dst, when, id, 0, bytes, 0};
}

static void received(struct state *s, OTF2_LocationRef loc, OTF2_TimeStamp t, uint32_t sender,
                     OTF2_CommRef comm, uint32_t tag, uint64_t bytes, int blocking)
{
    uint64_t src = world(s, comm, sender), when = t;
    uint64_t entered = loc < 4096 ? s->enter_time[loc] : when;
    for (size_t i = 0; i < s->ninflight; i++) {
        struct message m = s->inflight[i];
        if (m.id == 0 || m.comm != comm || m.src != src || m.dst != loc || m.tag != tag)
            continue;
        memmove(s->inflight + i, s->inflight + i + 1, (s->ninflight - i - 1) * sizeof *s->inflight);
        s->ninflight--;
        arrow(s, m.id, m.time, &m, when, entered, blocking);
        return;
    }
    s->inflight = realloc(s->inflight, (s->ninflight + 1) * sizeof *s->inflight);
    s->inflight[s->ninflight++] =
        (struct message){comm, tag, src, loc, when, 0, entered, bytes, blocking};
}

static OTF2_CallbackCode on_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t length)
{
    (void)a;
    sent(u, loc, t, receiver, comm, tag, length);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t length, uint64_t request)
{
    (void)a, (void)request;
    sent(u, loc, t, receiver, comm, tag, length);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t length)
{
    (void)a;
    received(u, loc, t, sender, comm, tag, length, 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t length, uint64_t request)
{
    (void)a, (void)request;
    received(u, loc, t, sender, comm, tag, length, 0);
    return OTF2_CALLBACK_SUCCESS;
}

/* The Chrome trace viewer's colour for a pattern: point-to-point red, one-sided yellow,
 * collectives orange. */
static const char *wait_colour(const char *pattern)
{
    static const char *const one_sided[] = {"Fence", "Post", "Transfer", "Early Wait", "Complete"};
    if (strncmp(pattern, "Late Sender", 11) == 0 || strncmp(pattern, "Late Receiver", 13) == 0)
        return "terrible";
    for (size_t i = 0; i < sizeof one_sided / sizeof *one_sided; i++)
        if (strstr(pattern, one_sided[i]))
            return "yellow";
    return "bad";
}

struct marks {
    struct state *s;
    long n;
};

static void mark_wait(int rank, const char *pattern, const char *region, long long start,
                      long long end, void *ctx)
{
    struct marks *m = ctx;
    struct state *s = m->s;
    double from = (double)start, until = (double)end;
    fprintf(s->out, ",\n{\"name\":\"");
    put_json_name(s->out, pattern ? pattern : "?");
    fprintf(s->out,
            "\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":0,"
            "\"tid\":%d,\"cname\":\"%s\",\"args\":{\"in\":\"",
            (from - (double)s->defs.clock_offset) / 1000.0, (until - from) / 1000.0, rank,
            wait_colour(pattern ? pattern : ""));
    put_json_name(s->out, region ? region : "?");
    fprintf(s->out, "\"}}");
    m->n++;
}

/* Marks the analysis's wait intervals of RUN (none if it was not analyzed); returns how
 * many. */
static long mark_analyzed_waits(struct state *s, const char *run)
{
    char path[4200], err[1024];
    snprintf(path, sizeof path, "%s/%s", run, RUNDB_FILE);
    sqlite3 *db;
    if (access(path, R_OK) != 0 || rundb_open_read(path, &db, err, sizeof err) != 0)
        return 0;
    struct marks m = {s, 0};
    rundb_wait_intervals(db, mark_wait, &m);
    rundb_close(db);
    return m.n;
}

#define fail(...) cli_fail("export", __VA_ARGS__)

int cli_export(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    const char *run = NULL, *chrome = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--chrome") == 0 && i + 1 < argc)
            chrome = argv[++i];
        else if (argv[i][0] == '-')
            return fail("unknown or incomplete option '%s'%s; see `mpilens export --help`", argv[i],
                        cli_option_hint(argv[i], usage));
        else
            run = argv[i];
    }
    if (!run || !chrome)
        return fail("give a run and an output%s: mpilens export RUN --chrome OUT.json", "");
    if (cli_convert_pending(run, "export") < 0)
        return 2;
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", run);
    char why[8500], ending[4096];
    int incomplete = cli_incomplete_run(run, ending, sizeof ending);
    if (access(anchor, R_OK) != 0 && incomplete) {
        snprintf(why, sizeof why,
                 "%s: the run did not end normally (%s) and its ranks saved no trace", run, ending);
        return fail("%s", why);
    }
    if (incomplete)
        fprintf(stderr,
                "mpilens: export: %s: incomplete run (%s): the trace ends where each rank "
                "stopped\n",
                run, ending);
    if (!cli_is_directory(run) || access(anchor, R_OK) != 0)
        return fail("%s: no trace here; run with the trace module (mpilens run -m trace ...)",
                    anchor);
    struct state s = {0};
    uint64_t nloc = 0;
    if (trace_check_run(run, &nloc, "export", why, sizeof why))
        return fail("%s", why);
    OTF2_Reader *reader = trace_reader_open(anchor, &nloc);
    if (!reader) {
        trace_open_problem(anchor, why, sizeof why);
        return fail("%s", why);
    }
    if (trace_missing_problem(run, nloc, why, sizeof why) ||
        trace_format_problem(reader, anchor, "export", why, sizeof why)) {
        OTF2_Reader_Close(reader);
        return fail("%s", why);
    }
    uint64_t defs = 0, ranks = trace_rank_count(reader, nloc);
    int bad = trace_defs_read(reader, &s.defs, &defs) != 0;
    for (uint64_t l = 0; !bad && l < nloc; l++)
        bad |= OTF2_Reader_SelectLocation(reader, l) != OTF2_SUCCESS;
    bad = bad || OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS ||
          OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS;
    for (uint64_t l = 0; !bad && l < nloc; l++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(reader, l);
        uint64_t n = 0;
        if (dr) {
            bad |= OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n) != OTF2_SUCCESS;
            OTF2_Reader_CloseDefReader(reader, dr);
        }
        bad |= OTF2_Reader_GetEvtReader(reader, l) == NULL;
    }
    if (!bad)
        OTF2_Reader_CloseDefFiles(reader);
    /* written under a temporary name, renamed when complete: a failed export leaves no
     * half-written file behind */
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial-%ld", chrome, (long)getpid());
    s.out = bad ? NULL : fopen(partial, "w");
    if (bad || !s.out) {
        OTF2_Reader_Close(reader);
        state_free(&s);
        if (bad && !trace_events_problem(run, anchor, nloc, why, sizeof why, NULL))
            snprintf(why, sizeof why,
                     "%s: the global definitions (traces.def) are truncated or corrupt; trace "
                     "the run again",
                     anchor);
        return bad ? fail("%s", why)
                   : fail("--chrome %s: cannot write the file; choose a writable path", chrome);
    }
    fprintf(s.out,
            "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
            "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"MPI\"}}");
    for (uint64_t l = 0; l < nloc; l++) { /* "rank 3", "rank 3 thread 2": the location's name */
        const char *name = l < s.defs.nlocations && s.defs.locations[l].defined
                               ? trace_defs_string(&s.defs, s.defs.locations[l].name)
                               : "";
        fprintf(s.out,
                ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%llu,"
                "\"args\":{\"name\":\"",
                (unsigned long long)l);
        if (strncmp(name, "MPI rank ", 9) == 0)
            put_json_name(s.out, name + 4);
        else
            fprintf(s.out, "rank %llu", (unsigned long long)l);
        fputs("\"}}", s.out);
    }
    s.analyzed = mark_analyzed_waits(&s, run);
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(reader);
    OTF2_GlobalEvtReaderCallbacks *gec = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(gec, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(gec, on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(gec, on_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(gec, on_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(gec, on_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(gec, on_irecv);
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader, ger, gec, &s);
    uint64_t read = 0;
    bad = OTF2_Reader_ReadAllGlobalEvents(reader, ger, &read) != OTF2_SUCCESS;
    OTF2_GlobalEvtReaderCallbacks_Delete(gec);
    fprintf(s.out, "\n]}\n");
    bad |= fclose(s.out) != 0;
    OTF2_Reader_Close(reader);
    state_free(&s);
    if (bad || rename(partial, chrome) != 0) {
        unlink(partial);
        if (!bad)
            return fail("--chrome %s: cannot write the file; choose a writable path", chrome);
        if (!trace_events_problem(run, anchor, nloc, why, sizeof why, NULL))
            snprintf(why, sizeof why, "%s: the events are truncated or corrupt", anchor);
        return fail("%s", why);
    }
    printf("mpilens: %s written (%llu events of %llu ranks, %s); open it in "
           "https://ui.perfetto.dev\n",
           chrome, (unsigned long long)read, (unsigned long long)ranks,
           s.analyzed ? "wait states from mpilens analyze"
                      : "Late Sender waits; run mpilens analyze for all");
    return 0;
}
