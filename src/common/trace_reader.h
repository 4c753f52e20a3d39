/* trace_reader.h: what every reader of the trace module's archives shares (mpilens export,
 * mpilens analyze and the mpilens-analyze replay): opening an archive with OTF2's own error
 * lines silenced (the readers say what went wrong in one line of their own), and the checks
 * made before reading it:
 *  - the version of the trace module's conventions (which records it writes and what they
 *    mean), stored in every archive as the OTF2 property MPILENS::TRACE_FORMAT; archives
 *    without the property (written by another tool) are read as they are. Bump the format
 *    when a reader could misread an older trace;
 *  - that the archive's rank count is believable: a corrupt anchor may claim billions of
 *    ranks, so the event files are counted before anyone allocates or starts that many.
 *  - where a rank's event file is damaged: OTF2 tells only that reading stopped after N
 *    events, so the file's chunk headers (OTF2 writes events in chunks of a fixed size,
 *    each opening with the numbers of its first and last event) give the byte range of
 *    the chunk that holds event N+1, or the byte where the file ends too early.
 * Each check writes its message, without the "mpilens: VERB: " prefix, into WHY.
 */
#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MPILENS_TRACE_FORMAT_PROPERTY "MPILENS::TRACE_FORMAT"
#define MPILENS_TRACE_FORMAT "1"

static inline OTF2_ErrorCode trace_reader_quiet(void *user, const char *file, uint64_t line,
                                                const char *function, OTF2_ErrorCode code,
                                                const char *format, va_list va)
{
    (void)user, (void)file, (void)line, (void)function, (void)format, (void)va;
    return code;
}

/* PATH open for reading, with its size in *size; NULL (and -1) if it cannot be read. */
static inline FILE *trace_open_sized(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    *size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (*size < 0 && f) {
        fclose(f);
        f = NULL;
    }
    return f;
}

static inline uint64_t trace_anchor_u64(const unsigned char *h, int at)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)h[at + i] << (h[1] == 0x42 ? 8 * i : 8 * (7 - i));
    return v;
}

/* 1 when the anchor file holds numbers OTF2 would act on before checking them: its chunk
 * sizes (8-byte integers at bytes 12 and 20, after the magic "OTF2", the anchor and trace
 * formats and the version) outside the bounds OTF2 writes within, a rank count (byte 30)
 * far above the event files present, or more global definitions (byte 38) than the bytes
 * of the file that holds them. Each makes OTF2 reserve gigabytes and take seconds to fail.
 * (A missing file or two is left to trace_missing_problem, which names it.) */
static inline int trace_anchor_problem(const char *anchor, char *why, size_t n)
{
    unsigned char h[46];
    FILE *f = fopen(anchor, "rb");
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    if (got < sizeof h || memcmp(h + 2, "OTF2", 5) != 0 || (h[1] != 0x42 && h[1] != 0x23))
        return 0; /* not ours to judge: OTF2 says no on its own */
    for (int at = 12; at <= 20; at += 8) {
        uint64_t size = trace_anchor_u64(h, at);
        if (size < OTF2_CHUNK_SIZE_MIN || size > OTF2_CHUNK_SIZE_MAX) {
            snprintf(why, n,
                     "%s: corrupt %s chunk size %llu at byte %d (OTF2 writes %llu..%llu); trace "
                     "the run again",
                     anchor, at == 12 ? "event" : "definition", (unsigned long long)size, at,
                     (unsigned long long)OTF2_CHUNK_SIZE_MIN,
                     (unsigned long long)OTF2_CHUNK_SIZE_MAX);
            return 1;
        }
    }
    uint64_t ranks = trace_anchor_u64(h, 30), found = 0;
    size_t len = strlen(anchor);
    char path[4200];
    while (found < ranks && len > 5 && len < 4000) {
        snprintf(path, sizeof path, "%.*s/%llu.evt", (int)(len - 5), anchor,
                 (unsigned long long)found);
        if (access(path, F_OK) != 0)
            break;
        found++;
    }
    if (ranks > 2 * found + 16) {
        snprintf(why, n,
                 "%s: corrupt rank count %llu at byte 30 (%llu event files found); trace the run "
                 "again",
                 anchor, (unsigned long long)ranks, (unsigned long long)found);
        return 1;
    }
    uint64_t defs = trace_anchor_u64(h, 38);
    snprintf(path, sizeof path, "%.*s.def", (int)(len - 5), anchor);
    long def_bytes;
    FILE *d = trace_open_sized(path, &def_bytes);
    if (d)
        fclose(d);
    if (def_bytes >= 0 && defs > (uint64_t)def_bytes) {
        snprintf(why, n,
                 "%s: corrupt count of %llu global definitions at byte 38 (%s has %ld bytes); "
                 "trace the run again",
                 anchor, (unsigned long long)defs, path, def_bytes);
        return 1;
    }
    return 0;
}

/* Why the archive at ANCHOR cannot be opened, for the message of a reader. */
static inline void trace_open_problem(const char *anchor, char *why, size_t n)
{
    if (!trace_anchor_problem(anchor, why, n))
        snprintf(why, n,
                 "%s: not a readable OTF2 archive (missing, truncated or corrupt); trace "
                 "the run again",
                 anchor);
}

/* The archive at ANCHOR open for reading, with its rank count in *RANKS, or NULL. */
static inline OTF2_Reader *trace_reader_open(const char *anchor, uint64_t *ranks)
{
    char why[8500];
    OTF2_Error_RegisterCallback(trace_reader_quiet, NULL);
    OTF2_Reader *reader =
        access(anchor, R_OK) == 0 && !trace_anchor_problem(anchor, why, sizeof why)
            ? OTF2_Reader_Open(anchor)
            : NULL;
    if (reader && (OTF2_Reader_SetSerialCollectiveCallbacks(reader) != OTF2_SUCCESS ||
                   OTF2_Reader_GetNumberOfLocations(reader, ranks) != OTF2_SUCCESS)) {
        OTF2_Reader_Close(reader);
        reader = NULL;
    }
    return reader;
}

/* 1 when READER's archive (at ANCHOR) is in another mpilens trace format; VERB is what the
 * user should do with the mpilens that wrote it ("analyze", "export"). */
static inline int trace_format_problem(OTF2_Reader *reader, const char *anchor, const char *verb,
                                       char *why, size_t n)
{
    char *value = NULL;
    if (OTF2_Reader_GetProperty(reader, MPILENS_TRACE_FORMAT_PROPERTY, &value) != OTF2_SUCCESS)
        return 0;
    int other = strcmp(value, MPILENS_TRACE_FORMAT) != 0;
    if (other)
        snprintf(why, n,
                 "%s: written in mpilens trace format %s; this mpilens reads format %s (%s it "
                 "with the mpilens that wrote it, or trace the run again)",
                 anchor, value, MPILENS_TRACE_FORMAT, verb);
    free(value);
    return other;
}

/* 1 when a rank below RANKS has no event file in RUN/trace/traces (stops at the first gap). */
static inline int trace_missing_problem(const char *run, unsigned long long ranks, char *why,
                                        size_t n)
{
    char path[4200];
    for (unsigned long long r = 0; r < ranks; r++) {
        snprintf(path, sizeof path, "%s/trace/traces/%llu.evt", run, r);
        if (access(path, R_OK) != 0) {
            snprintf(why, n, "%s: missing, but the archive has %llu ranks; trace the run again",
                     path, ranks);
            return 1;
        }
    }
    return 0;
}

/* Reads a chunk header at OFF of F (OTF2: type 3, endianness 0x42 little / 0x23 big, then
 * the numbers of the chunk's first and last event as 8-byte integers). 1 if it is one. */
static inline int trace_chunk_header(FILE *f, long off, uint64_t *first, uint64_t *last)
{
    unsigned char h[18];
    if (fseek(f, off, SEEK_SET) != 0 || fread(h, 1, sizeof h, f) != sizeof h || h[0] != 3 ||
        (h[1] != 0x42 && h[1] != 0x23))
        return 0;
    *first = *last = 0;
    for (int i = 0; i < 8; i++) {
        int shift = h[1] == 0x42 ? 8 * i : 8 * (7 - i);
        *first |= (uint64_t)h[2 + i] << shift;
        *last |= (uint64_t)h[10 + i] << shift;
    }
    return 1;
}

/* Where in the event file PATH (chunks of CHUNK bytes) reading went wrong after GOOD events:
 * writes "PATH: ... byte ..." into WHY. */
static inline void trace_damage_where(const char *path, uint64_t chunk, uint64_t good, char *why,
                                      size_t n)
{
    long size;
    FILE *f = trace_open_sized(path, &size);
    if (!f || chunk == 0) {
        snprintf(why, n, "%s: unreadable after event %llu; trace the run again", path,
                 (unsigned long long)good);
        if (f)
            fclose(f);
        return;
    }
    uint64_t want = good + 1, first, last;
    for (long off = 0, k = 1;; off += (long)chunk, k++) {
        if (off >= size) {
            snprintf(why, n,
                     "%s: truncated: the file ends at byte %ld after event %llu, with no chunk "
                     "for the rest; trace the run again",
                     path, size, (unsigned long long)good);
            break;
        }
        long end = off + (long)chunk < size ? off + (long)chunk : size;
        if (!trace_chunk_header(f, off, &first, &last)) {
            snprintf(why, n,
                     "%s: corrupt chunk header at byte %ld (chunk %ld, bytes %ld..%ld) after "
                     "event %llu; trace the run again",
                     path, off, k, off, end - 1, (unsigned long long)good);
            break;
        }
        if (want < first || want > last)
            continue;
        snprintf(why, n,
                 "%s: %s in bytes %ld..%ld (chunk %ld, events %llu..%llu): reading stopped "
                 "after event %llu; trace the run again",
                 path, end < off + (long)chunk && end == size ? "truncated or corrupt" : "corrupt",
                 off, end - 1, k, (unsigned long long)first, (unsigned long long)last,
                 (unsigned long long)good);
        break;
    }
    fclose(f);
}

/* Where the local definitions file PATH went wrong after GOOD records (OTF2 does not
 * chunk definitions: the file is one piece after its header). */
static inline void trace_damage_where_defs(const char *path, uint64_t good, char *why, size_t n)
{
    long size;
    FILE *f = trace_open_sized(path, &size);
    uint64_t first, last;
    if (f && size >= 18 && !trace_chunk_header(f, 0, &first, &last))
        snprintf(why, n, "%s: corrupt header at byte 0 (file of %ld bytes); trace the run again",
                 path, size);
    else
        snprintf(why, n,
                 "%s: corrupt or truncated local definitions in bytes 18..%ld after record %llu; "
                 "trace the run again",
                 path, size - 1, (unsigned long long)good);
    if (f)
        fclose(f);
}

/* 1 when some rank's definitions or events in RUN (archive ANCHOR, RANKS ranks) cannot all
 * be read: WHY says where (trace_damage_where, _defs) for the first such rank. */
static inline int trace_events_problem(const char *run, const char *anchor,
                                       unsigned long long ranks, char *why, size_t n)
{
    for (unsigned long long r = 0; r < ranks; r++) {
        uint64_t nloc = 0, chunk = 0, defs_chunk = 0, events = 0;
        OTF2_Reader *reader = trace_reader_open(anchor, &nloc);
        if (!reader)
            return 0;
        OTF2_Reader_GetChunkSize(reader, &chunk, &defs_chunk);
        OTF2_EvtReader *er = NULL;
        uint64_t defs = 0;
        int defs_bad = OTF2_Reader_SelectLocation(reader, r) != OTF2_SUCCESS ||
                       OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS;
        OTF2_DefReader *dr = defs_bad ? NULL : OTF2_Reader_GetDefReader(reader, r);
        if (dr) {
            defs_bad = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &defs) != OTF2_SUCCESS;
            OTF2_Reader_CloseDefReader(reader, dr);
            OTF2_Reader_CloseDefFiles(reader);
        }
        if (defs_bad) {
            OTF2_Reader_Close(reader);
            char path[4200];
            snprintf(path, sizeof path, "%s/trace/traces/%llu.def", run, r);
            trace_damage_where_defs(path, defs, why, n);
            return 1;
        }
        if (OTF2_Reader_OpenEvtFiles(reader) == OTF2_SUCCESS)
            er = OTF2_Reader_GetEvtReader(reader, r);
        int bad = !er || OTF2_Reader_ReadAllLocalEvents(reader, er, &events) != OTF2_SUCCESS;
        OTF2_Reader_Close(reader);
        if (bad) {
            char path[4200];
            snprintf(path, sizeof path, "%s/trace/traces/%llu.evt", run, r);
            trace_damage_where(path, chunk, events, why, n);
            return 1;
        }
    }
    return 0;
}

#endif
