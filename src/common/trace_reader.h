/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_reader.h: what every reader of the trace module's archives shares (mpilens export,
 * mpilens analyze and the mpilens-analyze replay): the checks made before OTF2 reads an
 * archive, and the one-line messages that name the damaged file when one fails.
 *  - the anchor (traces.otf2) is parsed field by field by our own code first: OTF2 3.0's
 *    anchor loader trusts some of its numbers (a property count of 2^31 or more overflows
 *    a 32-bit size and corrupts the heap; chunk sizes, rank and definition counts make it
 *    reserve gigabytes), so a number that cannot be right stops here, with its byte;
 *  - the version of the trace module's conventions, the OTF2 property MPILENS::TRACE_FORMAT
 *    (archives without it, from another tool, are read as they are);
 *  - trace_check_run reads the whole archive once in a child process before the reader
 *    itself does: what OTF2 cannot read, or where it crashes (a fault in the library that no
 *    check of ours foresaw), becomes one line that names the file being read, and the
 *    reader never starts on it;
 *  - where a rank's event file is damaged, from the chunk headers (OTF2 writes events in
 *    chunks of a fixed size, each opening with the numbers of its first and last event).
 * Each check writes its message, without the "mpilens: VERB: " prefix, into WHY.
 */
#ifndef TRACE_READER_H
#define TRACE_READER_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

#define MPILENS_TRACE_FORMAT_PROPERTY "MPILENS::TRACE_FORMAT"
/* The number of ranks (a rank has a location per thread that called MPI). */
#define MPILENS_TRACE_RANKS_PROPERTY "MPILENS::RANKS"
/* The launcher the traced run used (`mpirun --oversubscribe`), for `mpilens analyze`. */
#define MPILENS_TRACE_LAUNCHER_PROPERTY "MPILENS::LAUNCHER"
/* The largest distance in ns of any rank's log clock from its linear map to
 * CLOCK_MONOTONIC, measured during the run (0: the ns clock, or not measured). */
#define MPILENS_TRACE_CLOCK_RESIDUAL_PROPERTY "MPILENS::CLOCK_RESIDUAL_NS"
/* How far the ranks' clock offsets to rank 0 may be off (ns, the largest over the ranks:
 * half the smallest ping-pong round trip of their measurement); the events are on rank 0's
 * clock within that, through the ClockOffset records OTF2's readers apply. */
#define MPILENS_TRACE_OFFSET_ERROR_PROPERTY "MPILENS::CLOCK_OFFSET_ERROR_NS"
#define MPILENS_TRACE_FORMAT "1"
/* RUN/trace/MPILENS_TRACE_PENDING: a finished run's event logs wait for their conversion
 * (a run without mpilens run, traced with the default trace:convert=after); readers convert
 * first (cli_convert_pending), `mpilens recover RUN` does, and the file then goes. */
#define MPILENS_TRACE_PENDING "CONVERT-PENDING"

/* 1 when the anchor file ANCHOR holds something OTF2 would act on without checking it
 * (see above); 0 when it is well formed, or not an OTF2 anchor at all (OTF2 says so). */
int trace_anchor_problem(const char *anchor, char *why, size_t n);

/* The archive at ANCHOR open for reading, with its location count in *LOCATIONS (one per
 * rank, and one more per thread beyond a rank's first that called MPI), or NULL. OTF2's
 * own error lines are silenced: the readers say what went wrong in one line. */
OTF2_Reader *trace_reader_open(const char *anchor, uint64_t *locations);
/* The rank count of READER's trace (its property MPILENS::RANKS), else LOCATIONS. */
uint64_t trace_rank_count(OTF2_Reader *reader, uint64_t locations);

/* Why the archive at ANCHOR cannot be opened, for the message of a reader. */
void trace_open_problem(const char *anchor, char *why, size_t n);

/* 1 when READER's archive (at ANCHOR) is in another mpilens trace format; VERB is what the
 * user should do with the mpilens that wrote it ("analyze", "export"). */
int trace_format_problem(OTF2_Reader *reader, const char *anchor, const char *verb, char *why,
                         size_t n);

/* 1 when a rank below RANKS has no event file in RUN/trace/traces (the first gap named). */
int trace_missing_problem(const char *run, unsigned long long ranks, char *why, size_t n);

/* Where the event file PATH (chunks of CHUNK bytes) went wrong after GOOD events. */
void trace_damage_where(const char *path, uint64_t chunk, uint64_t good, char *why, size_t n);

/* Where the local definitions file PATH went wrong after GOOD records. */
void trace_damage_where_defs(const char *path, uint64_t good, char *why, size_t n);

/* 1 when some rank's definitions or events in RUN (archive ANCHOR, RANKS ranks) cannot all
 * be read: WHY says where for the first such rank. STAGE (unless NULL) hears of each file
 * before it is read (trace_check_run's child keeps it, to name where OTF2 crashed). */
int trace_events_problem(const char *run, const char *anchor, unsigned long long ranks, char *why,
                         size_t n, void (*stage)(const char *path));

/* The whole archive of RUN (anchor, global definitions, every rank's definitions and events)
 * read once in a child process: 0 when all of it reads, with its rank count in *RANKS; 1
 * with WHY naming the first file that does not (or on which OTF2 crashed). VERB as for
 * trace_format_problem. Call it before reading an archive in-process. */
int trace_check_run(const char *run, uint64_t *ranks, const char *verb, char *why, size_t n);

#endif
