/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_convert.h: event logs to OTF2 (trc_convert.c). */
#ifndef TRC_CONVERT_H
#define TRC_CONVERT_H

#include <otf2/otf2.h>
#include <stdint.h>

#include "trace_reader.h"
#include "trc_defs.h"

/* A new OTF2 archive DIR/traces.otf2 of NRANKS ranks with bounded memory and the mpilens
 * properties (format, ranks, launcher); the caller sets the collective callbacks. NULL if
 * it cannot be made. */
OTF2_Archive *trc_archive_open(const char *dir, int nranks);

struct trc_convert_result {
    uint64_t bytes;     /* of the log converted */
    uint64_t last_time; /* of the last event written */
    int damaged;        /* the log ended in a record that could not be converted */
    int open_regions;   /* regions left open at the log's end (closed at last_time) */
};

/* Converts the log at LOG_PATH of the rank whose definitions H describes into W; -1 if the
 * log cannot be read. */
int trc_convert(OTF2_EvtWriter *w, const char *log_path, const struct trc_defs_head *h,
                struct trc_convert_result *res);

/* Converts the logs of every thread of the rank MAP describes (under the trace directory
 * DIR) into their locations (the logs stay: the caller removes them once the archive is
 * closed without error); EVENTS[t] receives the events of thread t. Returns the last time
 * stamp written. */
/* The first OTF2 call of this process that failed while writing (OTF2_SUCCESS: none): its
 * code is noted by trc_otf2_note, which returns it. */
extern OTF2_ErrorCode trc_otf2_failed;
/* Removes an OTF2 archive (cut short) from the trace directory DIR, not its event logs. */
void trc_remove_archive(const char *dir);
OTF2_ErrorCode trc_otf2_note(OTF2_ErrorCode rc);
uint64_t trc_convert_rank(OTF2_Archive *archive, const char *dir, const struct trc_rank_map *map,
                          uint64_t *events);

#endif
