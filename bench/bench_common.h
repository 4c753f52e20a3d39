/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_common.h: what the benchmarks share: a monotonic clock, medians, and the MPI
 * library's own functions (dlopen + dlsym on libmpi itself, which no preloaded tool can
 * intercept), the baseline every benchmark compares the stack against.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

double bench_now(void);
/* Sorts v and returns its median. */
double bench_median(double *v, int n);
/* The MPI library's own symbol name ("PMPI_Send"); exits if libmpi is not loaded. */
void *bench_library_function(const char *name);

#endif
