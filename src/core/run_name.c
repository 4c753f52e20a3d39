/* SPDX-License-Identifier: BSD-3-Clause */
/* run_name.c: the default name of a run's output directory, shared by `mpilens run` and a
 * run preloaded without it: PROGRAM-YYYYmmdd-HHMMSS, or under Slurm (SLURM_JOB_ID set)
 * PROGRAM-jobID-YYYYmmdd-HHMMSS, so that a batch job's results are found by its id (as
 * Darshan names its logs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "modspec.h"

void lens_run_name(const char *program, char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    const char *job = getenv("SLURM_JOB_ID");
    char tag[64] = "";
    if (job && *job && strspn(job, "0123456789") == strlen(job)) /* ids only */
        snprintf(tag, sizeof tag, "-job%s", job);
    snprintf(out, len, "%s%s-%04d%02d%02d-%02d%02d%02d", program, tag, tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}
