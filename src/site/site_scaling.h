/* SPDX-License-Identifier: BSD-3-Clause */
/* site_scaling.h: the POP scaling table of one application from the site store (`mpilens
 * site scaling APP`): its jobs that reached MPI_Finalize, grouped by rank count, each
 * column the median of its group with the spread of parallel efficiency (src/pop draws
 * the table as it draws one of runs).
 */
#ifndef SITE_SCALING_H
#define SITE_SCALING_H

#include "pop_scaling.h"
#include "site_query.h"

/* F's application (F->app, required): *POINTS (malloc'ed, one per rank count) and their
 * number in *N; *READ: the jobs read. 0, or -1 with ERR. */
int site_scaling_points(struct site_store *s, const struct site_filter *f,
                        struct pop_point **points, int *n, long *read, char *err, size_t errlen);

#endif
