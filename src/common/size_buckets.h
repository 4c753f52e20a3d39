/* SPDX-License-Identifier: BSD-3-Clause */
/* size_buckets.h: the profile's message-size buckets written as a list of upper bounds
 * ("128,1024,8192"), parsed the same way by the profile module (MPILENS_BUCKETS or its
 * buckets= argument) and by `mpilens run`, which checks the list before it launches
 * anything, so a mistake is said once, deterministically, with nothing started.
 */
#ifndef LENS_SIZE_BUCKETS_H
#define LENS_SIZE_BUCKETS_H

#include <stddef.h>
#include <stdint.h>

#define LENS_MAX_BUCKETS 32 /* bounds + 1 */

/* Parses LIST into BOUNDS (at most LENS_MAX_BUCKETS - 1, increasing byte counts); *COUNT
 * the number of bounds. 0, or -1 with WHY ("'50' is not an increasing byte count; ...",
 * without the variable's name). */
int lens_buckets_parse(const char *list, int64_t *bounds, int *count, char *why, size_t n);

#endif
