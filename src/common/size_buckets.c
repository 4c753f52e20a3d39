/* SPDX-License-Identifier: BSD-3-Clause */
/* size_buckets.c: the bucket list parser shared by the profile module and `mpilens run`
 * (size_buckets.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size_buckets.h"

int lens_buckets_parse(const char *list, int64_t *bounds, int *count, char *why, size_t n)
{
    int found = 0;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        char *end;
        errno = 0;
        long long v = strtoll(item, &end, 10);
        if (len == 0 || len >= sizeof item || *end || errno || v < 0 ||
            (found > 0 && v <= bounds[found - 1])) {
            snprintf(why, n, "'%s' is not an increasing byte count; write e.g. 128,1024,8192",
                     item);
            return -1;
        }
        if (found == LENS_MAX_BUCKETS - 1) {
            snprintf(why, n, "more than %d bounds; give at most %d", LENS_MAX_BUCKETS - 1,
                     LENS_MAX_BUCKETS - 1);
            return -1;
        }
        bounds[found++] = v;
        p += len + (comma ? 1 : 0);
        if (comma && !*p) {
            snprintf(why, n, "ends with a comma; write e.g. 128,1024,8192");
            return -1;
        }
    }
    *count = found;
    return 0;
}
