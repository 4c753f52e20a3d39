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

/* The archive at ANCHOR open for reading, with its rank count in *RANKS, or NULL. */
static inline OTF2_Reader *trace_reader_open(const char *anchor, uint64_t *ranks)
{
    OTF2_Error_RegisterCallback(trace_reader_quiet, NULL);
    OTF2_Reader *reader = access(anchor, R_OK) == 0 ? OTF2_Reader_Open(anchor) : NULL;
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

#endif
