/* SPDX-License-Identifier: BSD-3-Clause */
/* lens_counts.h: an array of counts as MPI passes it, of int or, in a large-count binding
 * (MPI_Send_c & co., MPI 4), of MPI_Count. LENS_COUNTS(a) picks by the array's type, so one
 * helper serves both bindings of a v- or w-collective. Compiled into each module.
 */
#ifndef LENS_COUNTS_H
#define LENS_COUNTS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct lens_counts {
    const int *i;
    const MPI_Count *w;
};

static inline struct lens_counts lens_counts_int(const int *i)
{
    return (struct lens_counts){i, NULL};
}

static inline struct lens_counts lens_counts_wide(const MPI_Count *w)
{
    return (struct lens_counts){NULL, w};
}

#define LENS_COUNTS(a)                                                                             \
    _Generic((a), const int * : lens_counts_int, int * : lens_counts_int, default : lens_counts_wide)(a)
#define LENS_NO_COUNTS ((struct lens_counts){NULL, NULL})

/* Count k of c (0 without an array). */
static inline int64_t lens_count_at(struct lens_counts c, int k)
{
    return c.i ? c.i[k] : c.w ? (int64_t)c.w[k] : 0;
}

static inline int lens_has_counts(struct lens_counts c)
{
    return c.i || c.w;
}

#endif
