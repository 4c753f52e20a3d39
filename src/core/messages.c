/* SPDX-License-Identifier: BSD-3-Clause */
/* messages.c: how the core speaks to the user. Errors are said once per job (by rank 0,
 * known from the launcher's environment because they happen before MPI_Init), on stderr,
 * as one line starting with "mpilens: ".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core.h"

int lens_env_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "MPI_LOCALRANKID", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *value = getenv(vars[i]);
        if (value && *value)
            return atoi(value);
    }
    return -1;
}

static void say(const char *fmt, va_list ap)
{
    if (lens_env_rank() > 0)
        return;
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "mpilens: %s\n", line);
    fflush(stderr);
}

void lens_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

void lens_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    /* A launcher kills every rank once one has exited (MPICH's at once): the other ranks
     * give rank 0 time to say why before they go; seen under load, rank 1's exit killed
     * rank 0 before its line was out. */
    if (lens_env_rank() > 0) {
        struct timespec wait = {3, 0};
        while (nanosleep(&wait, &wait) != 0)
            ;
    }
    exit(2);
}
