/* SPDX-License-Identifier: BSD-3-Clause */
/* run_problem.c: a module says that a write failed (run_output.h): one line on stderr,
 * once per job for each kind of problem when `mpilens run` holds the run's claim file
 * (run_claim.h), and the problem recorded there, so the command ends with it and a
 * non-zero status. And lens_grow, whose failure is such a problem.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_claim.h"
#include "run_output.h"

void lens_run_problem(const char *key, const char *fmt, ...)
{
    char text[LENS_CLAIM_SLOT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (lens_problem_record(lens_run_output_dir(), key, text) != 0) {
        fprintf(stderr, "mpilens: %s\n", text);
        fflush(stderr);
    }
}

int lens_grow(const char *module, void *ptr, size_t count, size_t size)
{
    void **at = ptr;
    void *grown = count <= SIZE_MAX / (size ? size : 1) ? realloc(*at, count * size) : NULL;
    if (grown) {
        *at = grown;
        return 0;
    }
    static int said;
    if (!said++)
        lens_run_problem(module,
                         "%s: out of memory while keeping %zu rows of %zu bytes: rows are "
                         "dropped, the results are incomplete",
                         module, count, size);
    return -1;
}
