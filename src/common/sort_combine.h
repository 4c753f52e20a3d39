/* SPDX-License-Identifier: BSD-3-Clause */
/* sort_combine.h: sorts an array of rows and folds the rows that compare equal into the
 * first of them, so that one row per key remains (the profile's reduction over ranks and
 * the monitor's recovered snapshot rows use it). Returns the number of rows kept.
 */
#ifndef LENS_SORT_COMBINE_H
#define LENS_SORT_COMBINE_H

#include <stdlib.h>
#include <string.h>

static inline size_t lens_sort_combine(void *rows, size_t n, size_t size,
                                       int (*compare)(const void *, const void *),
                                       void (*fold)(void *into, const void *from))
{
    if (n < 2)
        return n;
    qsort(rows, n, size, compare);
    char *row = rows;
    size_t out = 0;
    for (size_t i = 1; i < n; i++) {
        if (compare(row + out * size, row + i * size) == 0)
            fold(row + out * size, row + i * size);
        else if (++out != i)
            memcpy(row + out * size, row + i * size, size);
    }
    return out + 1;
}

#endif
