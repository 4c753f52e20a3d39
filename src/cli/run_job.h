/* SPDX-License-Identifier: BSD-3-Clause */
/* run_job.h: start the job of `mpilens run`, forward the signals that stop it, wait. */
#ifndef LENS_RUN_JOB_H
#define LENS_RUN_JOB_H

/* Runs COMMAND to its end; returns its exit status (128 + N when signal N ended it), with
 * *SIGNAL_RECEIVED the first SIGINT, SIGTERM or SIGHUP `mpilens run` got meanwhile (or 0).
 * With LOG (not NULL), the job's output goes to that file and its input is /dev/null (the
 * terminal belongs to the live view). */
int run_job(char **command, const char *log, int *signal_received);

#endif
