/* SPDX-License-Identifier: BSD-3-Clause */
/* run_output.h: where a module writes: the run's output directory from the core
 * (mpilens_output_dir), else MPILENS_OUTPUT, else the working directory (a module
 * preloaded alone, without mpilens). */
#ifndef LENS_RUN_OUTPUT_H
#define LENS_RUN_OUTPUT_H

#include "lens_hidden.h"

#include <stddef.h>

LENS_HIDDEN const char *lens_run_output_dir(void);

/* A write of this rank failed: TEXT (printf-style: "MODULE: FILE: system's error; what was
 * kept") is said on stderr, once per job for its KEY when the run has a claim file
 * (run_claim.h, written by `mpilens run`), and recorded there so that the command ends
 * with it and a non-zero status. */
LENS_HIDDEN __attribute__((format(printf, 2, 3))) void lens_run_problem(const char *key,
                                                                        const char *fmt, ...);

/* realloc(*PTR, COUNT x SIZE) that leaves *PTR as it was on failure and says once per
 * process, as a problem of MODULE, that rows are dropped (the run's results incomplete).
 * 0, or -1. */
LENS_HIDDEN int lens_grow(const char *module, void *ptr, size_t count, size_t size);

#endif
