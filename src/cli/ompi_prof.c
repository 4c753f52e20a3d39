/* ompi_prof.c: the reader of ompi_prof.h. */
#include "ompi_prof.h"

#include <stdio.h>
#include <stdlib.h>

int ompi_prof_load(const char *prefix, struct prof_entry **out, int *ranks)
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
        while (fgets(line, sizeof line, f)) {
            struct prof_entry e;
            char tag;
            if (sscanf(line, "%c\t%d\t%d\t%llu bytes\t%llu msgs sent", &tag, &e.src, &e.dst,
                       &e.bytes, &e.count) == 5 &&
                (tag == 'E' || tag == 'I')) {
                e.internal = tag == 'I';
                *out = realloc(*out, (n + 1) * sizeof **out);
                (*out)[n++] = e;
                if (e.dst + 1 > *ranks)
                    *ranks = e.dst + 1;
            }
        }
        fclose(f);
    }
    if (rank == 0)
        return -1;
    if (rank > *ranks)
        *ranks = rank;
    return n;
}
