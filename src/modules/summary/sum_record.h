/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_record.h: the job step's record, summary.json (docs/summary.md: schema version
 * RECORD_SCHEMA_VERSION), written by one rank with the user's permissions, atomically (a
 * temporary name in the same directory, then a rename: record_file.h), into the site's spool
 * and beside a run's results.
 */
#ifndef SUM_RECORD_H
#define SUM_RECORD_H

#include "record_layout.h"
#include "sum_merge.h"
#include "sum_program.h"

#pragma GCC visibility push(hidden)

#define SUM_RECORD_MAX RECORD_MAX /* bytes, whatever the job's size */

/* The record's text into TEXT (SUM_RECORD_MAX bytes), from the merged figures M of a job
 * step of RANKS ranks that ended as ENDED ("MPI_Finalize", "MPI_Abort (rank 2, code 1)",
 * "signal 15"); 0, or -1 if it does not fit. Without call sites in M it allocates nothing
 * (a signal handler's record). */
int sum_record_text(const struct sum_merged *m, const struct sum_program *p, int ranks,
                    double start, double end, const char *ended, char *text);
/* The record's file name in a spool: JOB.STEP.USER.RUNID.summary.json under Slurm (a
 * requeued job's: JOB.STEP.USER.rN.RUNID.summary.json), else HOST.USER.RUNID.summary.json;
 * RUNID (P's run_id, the run's identifier) makes it a name nobody can take before the job
 * writes it. */
void sum_record_spool_name(const struct sum_program *p, char *out, size_t len);

#pragma GCC visibility pop

#endif
