/* run_problem.c: a module says that a write failed (run_output.h): one line on stderr,
 * once per job for each kind of problem when `mpilens run` holds the run's claim file
 * (run_claim.h), and the problem recorded there, so the command ends with it and a
 * non-zero status.
 */
#include <stdarg.h>
#include <stdio.h>

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
