/* SPDX-License-Identifier: BSD-3-Clause */
/* summary_of_run.h: the summary.json record (docs/summary.md) of a run that the summary
 * module did not measure, made after the job from the profile in its database, so that
 * every `mpilens run` with the profile leaves DIR/summary.json beside its results at no
 * cost to the job: the record a site's spool holds, in the same format, its figures the
 * profile's (marked "source": "profile").
 */
#ifndef SUMMARY_OF_RUN_H
#define SUMMARY_OF_RUN_H

#include <stddef.h>

/* DIR/summary.json from DIR/mpilens.db: 1 written; 0 nothing to do (DIR already holds a
 * summary.json, the summary module's, or its database has no profile); -1 with WHY (one
 * line: what could not be read or written). */
int summary_of_run_write(const char *dir, char *why, size_t len);

#endif
