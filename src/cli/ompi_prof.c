/* SPDX-License-Identifier: BSD-3-Clause */
/* ompi_prof.c: the reader of ompi_prof.h. */
#include "ompi_prof.h"

#include <stdio.h>
#include <stdlib.h>

int ompi_prof_load(const char *prefix, struct prof_entry **out, int *ranks, char *err,
                   size_t errlen)
{
    int n = 0, rank = 0;
    *out = NULL;
    *ranks = 0;
    for (;; rank++) {
        char path[4096], line[8192];
        snprintf(path, sizeof path, "%s.%d.prof", prefix, rank);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            struct prof_entry e;
            char tag;
            if (sscanf(line, "%c\t%d\t%d\t%llu bytes\t%llu msgs sent", &tag, &e.src, &e.dst,
                       &e.bytes, &e.count) == 5 &&
                (tag == 'E' || tag == 'I')) {
                if (e.src < 0 || e.dst < 0 || e.src >= OMPI_PROF_MAX_RANKS ||
                    e.dst >= OMPI_PROF_MAX_RANKS) {
                    snprintf(err, errlen,
                             "%s:%d: rank outside 0..%d; is this an Open MPI .prof "
                             "file?",
                             path, lineno, OMPI_PROF_MAX_RANKS - 1);
                    fclose(f);
                    free(*out);
                    *out = NULL;
                    return -2;
                }
                e.internal = tag == 'I';
                *out = realloc(*out, (n + 1) * sizeof **out);
                (*out)[n++] = e;
                if (e.dst + 1 > *ranks)
                    *ranks = e.dst + 1;
                if (e.src + 1 > *ranks)
                    *ranks = e.src + 1;
            }
        }
        fclose(f);
        if (rank + 1 >= OMPI_PROF_MAX_RANKS)
            break;
    }
    if (rank == 0)
        return -1;
    if (rank > *ranks)
        *ranks = rank;
    return n;
}
