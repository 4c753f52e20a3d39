/* SPDX-License-Identifier: BSD-3-Clause */
/* triples.h: the sparse traffic matrix `mpilens place` maps (src, dst, value triples), and
 * its CSV form. Ranks are checked (0 <= rank < TRIPLES_MAX_RANKS) and values must be
 * finite and non-negative, so no input can make place allocate without bound or compute
 * with NaN.
 */
#ifndef LENS_TRIPLES_H
#define LENS_TRIPLES_H

#include <stddef.h>

#define TRIPLES_MAX_RANKS (1 << 20)

struct triples {
    int *src, *dst, n; /* n: ranks (1 + the largest rank seen, or more) */
    double *value;
    size_t count;
};

/* Adds one triple; 0, or -1 if a rank is out of range or the value is not a finite
 * non-negative number. */
int triples_add(struct triples *t, long long src, long long dst, double value);
/* Reads src,dst,value lines (a header line and # comments are skipped). 0, or -1 with
 * "FILE:LINE: what is wrong; what to write" in err. */
int triples_read_csv(const char *path, struct triples *t, char *err, size_t errlen);
void triples_free(struct triples *t);

#endif
