/* SPDX-License-Identifier: BSD-3-Clause */
/* triples.c: the matrix of triples.h. */
#include "triples.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int triples_add(struct triples *t, long long s, long long d, double v)
{
    if (s < 0 || d < 0 || s >= TRIPLES_MAX_RANKS || d >= TRIPLES_MAX_RANKS || !isfinite(v) || v < 0)
        return -1;
    t->src = realloc(t->src, (t->count + 1) * sizeof *t->src);
    t->dst = realloc(t->dst, (t->count + 1) * sizeof *t->dst);
    t->value = realloc(t->value, (t->count + 1) * sizeof *t->value);
    t->src[t->count] = (int)s;
    t->dst[t->count] = (int)d;
    t->value[t->count++] = v;
    if (s + 1 > t->n)
        t->n = (int)s + 1;
    if (d + 1 > t->n)
        t->n = (int)d + 1;
    return 0;
}

int triples_read_csv(const char *path, struct triples *t, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "--matrix %s: cannot read the file", path);
        return -1;
    }
    char line[256];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%d: line longer than %zu characters; write src,dst,value",
                     path, lineno, sizeof line - 2);
            rc = -1;
            break;
        }
        long long s, d;
        double v;
        char extra;
        int fields = sscanf(line, "%lld,%lld,%lf %c", &s, &d, &v, &extra);
        if (line[0] == '#' || line[0] == '\n' || (lineno == 1 && fields < 3))
            continue; /* comment, blank line, header */
        if (fields != 3) {
            snprintf(err, errlen, "%s:%d: expected src,dst,value (two ranks and a number)", path,
                     lineno);
            rc = -1;
        } else if (triples_add(t, s, d, v) != 0) {
            snprintf(err, errlen,
                     "%s:%d: ranks must lie in 0..%d and the value must be a finite number >= 0",
                     path, lineno, TRIPLES_MAX_RANKS - 1);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

void triples_free(struct triples *t)
{
    free(t->src);
    free(t->dst);
    free(t->value);
    memset(t, 0, sizeof *t);
}
