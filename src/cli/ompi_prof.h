/* SPDX-License-Identifier: BSD-3-Clause */
/* ompi_prof.h: read Open MPI monitoring's PREFIX.RANK.prof files (pml level: "E" lines for
 * user messages, "I" lines for the library's internal ones, which include collectives as
 * the library decomposed them), for `mpilens matrix` and `mpilens place`.
 */
#ifndef LENS_OMPI_PROF_H
#define LENS_OMPI_PROF_H

struct prof_entry {
    int src, dst;
    int internal; /* an "I" line: the library's own traffic (collectives, one-sided) */
    unsigned long long count, bytes;
};

#include <stddef.h>

#define OMPI_PROF_MAX_RANKS (1 << 20)

/* Reads PREFIX.0.prof, PREFIX.1.prof, ... until one is missing. Returns the number of
 * entries (in *out, malloc'ed) and the number of ranks in *ranks; -1 if PREFIX.0.prof
 * cannot be read; -2 with "FILE:LINE: ..." in err if a line names a rank outside
 * 0..OMPI_PROF_MAX_RANKS-1. Lines that are not E or I lines are skipped. */
int ompi_prof_load(const char *prefix, struct prof_entry **out, int *ranks, char *err,
                   size_t errlen);

#endif
