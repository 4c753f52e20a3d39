/* record_sections.h: the parts of a summary.json record (docs/summary.md) that its two
 * writers, the summary module and `mpilens run` from a run's database (summary_of_run.h),
 * write alike: the job, from Slurm's environment, with its user; and the run's span.
 */
#ifndef RECORD_SECTIONS_H
#define RECORD_SECTIONS_H

#include "record_text.h"

#pragma GCC visibility push(hidden)

/* "job": id, step, name, account, partition and cluster from Slurm's environment (null
 * outside Slurm), USER and UID. */
void record_section_job(struct record_text *j, const char *user, long long uid);
/* "start", "end" (UTC, ISO 8601), "start_epoch", "end_epoch" of the span START to END
 * (seconds since the epoch). */
void record_section_span(struct record_text *j, double start, double end);

#pragma GCC visibility pop

#endif
