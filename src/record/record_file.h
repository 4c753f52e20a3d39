/* record_file.h: a summary.json record written into a directory with the writer's own
 * permissions (mode 0640), atomically: under a temporary name in the same directory, then
 * renamed (or linked, to keep a record already there), so that a reader never sees half a
 * record. The summary module writes its record through it, and `mpilens run` the record
 * of a run's database (summary_of_run.h).
 */
#ifndef RECORD_FILE_H
#define RECORD_FILE_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* TEXT and a newline into DIR/NAME; 0, or -1 with the reason in WHY. KEEP_FIRST: a record
 * already there stays (a rank's own figures after another rank's MPI_Abort, or rank 0's at
 * the signal the launcher then sends, never replace the first), and the file is not
 * synced (the launcher may be killing the job). */
int record_file_write(const char *dir, const char *name, const char *text, int keep_first,
                      char *why, size_t len);

#pragma GCC visibility pop

#endif
