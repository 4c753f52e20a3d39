/* trace_format.h: the version of the trace module's conventions (which records it writes
 * and what they mean), stored in every archive as the OTF2 property MPILENS::TRACE_FORMAT,
 * and the check readers make. Archives without the property (written by another tool) are
 * read as they are; trace_missing_rank checks that the archive's rank count is believable
 * before anyone allocates or starts that many. Bump the format when a reader could misread an older
 * trace.
 */
#ifndef TRACE_FORMAT_H
#define TRACE_FORMAT_H

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MPILENS_TRACE_FORMAT_PROPERTY "MPILENS::TRACE_FORMAT"
#define MPILENS_TRACE_FORMAT "1"

/* 1 (and the format found, into FOUND) when READER's archive is in another format. */
static inline int trace_format_other(OTF2_Reader *reader, char *found, size_t n)
{
    char *value = NULL;
    if (OTF2_Reader_GetProperty(reader, MPILENS_TRACE_FORMAT_PROPERTY, &value) != OTF2_SUCCESS)
        return 0;
    int other = strcmp(value, MPILENS_TRACE_FORMAT) != 0;
    snprintf(found, n, "%s", value);
    free(value);
    return other;
}

/* The first rank below RANKS without an event file in RUN/trace/traces, or -1 when all are
 * there (a corrupt anchor may claim billions of ranks: this stops at the first gap). */
static inline long long trace_missing_rank(const char *run, unsigned long long ranks)
{
    char path[4200];
    for (unsigned long long r = 0; r < ranks; r++) {
        snprintf(path, sizeof path, "%s/trace/traces/%llu.evt", run, r);
        if (access(path, R_OK) != 0)
            return (long long)r;
    }
    return -1;
}

#endif
