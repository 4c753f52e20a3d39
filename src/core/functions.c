/* SPDX-License-Identifier: BSD-3-Clause */
/* functions.c: look-up in the generated, sorted table of MPI function names. */
#include <string.h>

#include "lens_functions.h"

int lens_function_index(const char *name)
{
    int lo = 0, hi = lens_function_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int cmp = strcmp(name, lens_function_names[mid]);
        if (cmp == 0)
            return mid;
        if (cmp < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}
