/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_reader.c: opening a trace module archive for reading with OTF2's own error lines
 * silenced, the checks of its format and files, and the messages that say where a damaged
 * definitions or event file went wrong (see trace_reader.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_reader.h"

static OTF2_ErrorCode trace_reader_quiet(void *user, const char *file, uint64_t line,
                                         const char *function, OTF2_ErrorCode code,
                                         const char *format, va_list va)
{
    (void)user, (void)file, (void)line, (void)function, (void)format, (void)va;
    return code;
}

/* PATH open for reading, with its size in *size; NULL (and -1) if it cannot be read. */
static FILE *trace_open_sized(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    *size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (*size < 0 && f) {
        fclose(f);
        f = NULL;
    }
    return f;
}

/* Why the archive at ANCHOR cannot be opened, for the message of a reader. */
void trace_open_problem(const char *anchor, char *why, size_t n)
{
    if (!trace_anchor_problem(anchor, why, n))
        snprintf(why, n,
                 "%s: not a readable OTF2 archive (missing, truncated or corrupt); trace "
                 "the run again",
                 anchor);
}

/* The archive at ANCHOR open for reading, with its rank count in *RANKS, or NULL. */
OTF2_Reader *trace_reader_open(const char *anchor, uint64_t *locations)
{
    char why[8500];
    OTF2_Error_RegisterCallback(trace_reader_quiet, NULL);
    OTF2_Reader *reader =
        access(anchor, R_OK) == 0 && !trace_anchor_problem(anchor, why, sizeof why)
            ? OTF2_Reader_Open(anchor)
            : NULL;
    if (reader && (OTF2_Reader_SetSerialCollectiveCallbacks(reader) != OTF2_SUCCESS ||
                   OTF2_Reader_GetNumberOfLocations(reader, locations) != OTF2_SUCCESS)) {
        OTF2_Reader_Close(reader);
        reader = NULL;
    }
    return reader;
}

uint64_t trace_rank_count(OTF2_Reader *reader, uint64_t locations)
{
    char *value = NULL, *end = NULL;
    uint64_t ranks = locations;
    if (OTF2_Reader_GetProperty(reader, MPILENS_TRACE_RANKS_PROPERTY, &value) == OTF2_SUCCESS &&
        value) {
        unsigned long long n = strtoull(value, &end, 10);
        if (end != value && *end == '\0' && n > 0 && n <= locations)
            ranks = n;
    }
    free(value);
    return ranks;
}

/* 1 when READER's archive (at ANCHOR) is in another mpilens trace format; VERB is what the
 * user should do with the mpilens that wrote it ("analyze", "export"). */
int trace_format_problem(OTF2_Reader *reader, const char *anchor, const char *verb, char *why,
                         size_t n)
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
int trace_missing_problem(const char *run, unsigned long long ranks, char *why, size_t n)
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
static int trace_chunk_header(FILE *f, long off, uint64_t *first, uint64_t *last)
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
void trace_damage_where(const char *path, uint64_t chunk, uint64_t good, char *why, size_t n)
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
void trace_damage_where_defs(const char *path, uint64_t good, char *why, size_t n)
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
 * be read: WHY says where (trace_damage_where, _defs) for the first such rank; STAGE hears
 * of each file first. */
int trace_events_problem(const char *run, const char *anchor, unsigned long long ranks, char *why,
                         size_t n, void (*stage)(const char *path))
{
    for (unsigned long long r = 0; r < ranks; r++) {
        uint64_t nloc = 0, chunk = 0, defs_chunk = 0, events = 0;
        OTF2_Reader *reader = trace_reader_open(anchor, &nloc);
        if (!reader)
            return 0;
        OTF2_Reader_GetChunkSize(reader, &chunk, &defs_chunk);
        OTF2_EvtReader *er = NULL;
        uint64_t defs = 0;
        char path[4200];
        snprintf(path, sizeof path, "%s/trace/traces/%llu.def", run, r);
        if (stage)
            stage(path);
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
            trace_damage_where_defs(path, defs, why, n);
            return 1;
        }
        snprintf(path, sizeof path, "%s/trace/traces/%llu.evt", run, r);
        if (stage)
            stage(path);
        if (OTF2_Reader_OpenEvtFiles(reader) == OTF2_SUCCESS)
            er = OTF2_Reader_GetEvtReader(reader, r);
        int bad = !er || OTF2_Reader_ReadAllLocalEvents(reader, er, &events) != OTF2_SUCCESS;
        OTF2_Reader_Close(reader);
        if (bad) {
            trace_damage_where(path, chunk, events, why, n);
            return 1;
        }
    }
    return 0;
}
