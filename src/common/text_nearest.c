/* SPDX-License-Identifier: BSD-3-Clause */
/* text_nearest.c: the nearest word by edit distance (text_nearest.h). */
#include "text_nearest.h"

#include <string.h>

/* The edit distance (insert, delete, replace, swap of neighbours) between A and B, or a
 * number above 3 when it is larger than that. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > 3)
        return 4;
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *lens_nearest(const char *word, const char *const *choices, int n)
{
    const char *best = NULL;
    int best_d = 4, limit = strlen(word) <= 4 ? 1 : strlen(word) <= 7 ? 2 : 3;
    for (int i = 0; i < n; i++) {
        int d = distance(word, choices[i]);
        if (d < best_d && d <= limit)
            best = choices[i], best_d = d;
    }
    return best;
}
