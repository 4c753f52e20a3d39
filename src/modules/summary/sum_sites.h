/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_sites.h: the summary's sampled MPI time by (call site, operation): a fixed table on
 * each rank, sent as its costliest rows (SUM_TOP_SITES) and merged on the way to rank 0.
 */
#ifndef SUM_SITES_H
#define SUM_SITES_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

#define SUM_TOP_SITES 32
struct sum_site_row {
    double seconds; /* sampled MPI time */
    int op;
    uint64_t offset; /* in the object, or 0 for a label */
    char path[488];  /* the object, or a Python label ("python:FILE:FUNCTION:LINE") */
};

/* Charges TICKS to the call site of RETURN_ADDRESS (the wrapper's) for OP. */
void sum_sites_add(int op, void *return_address, uint64_t ticks);
/* This rank's costliest rows, seconds from SECONDS_PER_TICK, into ROWS (at most
 * SUM_TOP_SITES); returns how many. Also the sampled seconds the table could not hold. */
int sum_sites_top(struct sum_site_row *rows, double seconds_per_tick, double *dropped);
/* Adds rows B (nb) into A (*na), keeping the costliest SUM_TOP_SITES. */
void sum_sites_merge(struct sum_site_row *a, int *na, const struct sum_site_row *b, int nb);

#pragma GCC visibility pop

#endif
