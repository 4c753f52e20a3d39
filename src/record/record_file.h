/* SPDX-License-Identifier: BSD-3-Clause */
/* record_file.h: a summary.json record written into a directory readable by its writer
 * alone (mode 0600: the spool is shared, and a record names the program, the job and the
 * host), atomically: under a temporary name nobody can guess, then renamed (or linked, to
 * keep a record already there), so that a reader never sees half a record. A name another
 * user took first (a shared spool) never drops the record: it is written under another
 * name. The summary module writes its record through it, and `mpilens run` the record of a
 * run's database (summary_of_run.h).
 */
#ifndef RECORD_FILE_H
#define RECORD_FILE_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* TEXT and a newline into DIR/NAME: 0; 1 when NAME was taken by a file not this user's and
 * the record went under another name (said in WHY); or -1 with the reason in WHY.
 * KEEP_FIRST: a record of this user's already there stays (a rank's own figures after
 * another rank's MPI_Abort, or rank 0's at the signal the launcher then sends, never
 * replace the first), and the file is not synced (the launcher may be killing the job). */
int record_file_write(const char *dir, const char *name, const char *text, int keep_first,
                      char *why, size_t len);

/* BYTES random bytes (at most 32) as 2 x BYTES hex digits and a NUL into OUT: a run's
 * identifier (job.run_id), a name nobody can predict. */
void record_random_hex(char *out, size_t bytes);

#pragma GCC visibility pop

#endif
