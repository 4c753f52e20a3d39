/* SPDX-License-Identifier: BSD-3-Clause */
/* graph.c: the symmetric communication graph TreeMatch works on (CSR, duplicates summed). */
#include <stdlib.h>
#include <string.h>

#include "place.h"

struct edge {
    int a, b;
    double w;
};

static int by_pair(const void *x, const void *y)
{
    const struct edge *e = x, *f = y;
    return e->a != f->a ? (e->a > f->a) - (e->a < f->a) : (e->b > f->b) - (e->b < f->b);
}

int place_graph_build(struct place_graph *g, int n, const int *src, const int *dst,
                      const double *value, size_t count)
{
    memset(g, 0, sizeof *g);
    struct edge *e = malloc((2 * count + 1) * sizeof *e);
    size_t m = 0;
    for (size_t i = 0; i < count; i++) {
        if (src[i] == dst[i] || src[i] < 0 || dst[i] < 0 || src[i] >= n || dst[i] >= n ||
            value[i] <= 0)
            continue;
        e[m++] = (struct edge){src[i], dst[i], value[i]};
        e[m++] = (struct edge){dst[i], src[i], value[i]};
    }
    qsort(e, m, sizeof *e, by_pair);
    g->n = n;
    g->start = calloc(n + 1, sizeof *g->start);
    g->adj = malloc((m + 1) * sizeof *g->adj);
    g->weight = malloc((m + 1) * sizeof *g->weight);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && g->adj[k - 1] == e[i].b && i > 0 && e[i - 1].a == e[i].a) {
            g->weight[k - 1] += e[i].w;
            continue;
        }
        g->adj[k] = e[i].b;
        g->weight[k] = e[i].w;
        g->start[e[i].a + 1]++;
        k++;
    }
    for (int v = 0; v < n; v++)
        g->start[v + 1] += g->start[v];
    free(e);
    return 0;
}

void place_graph_free(struct place_graph *g)
{
    free(g->start);
    free(g->adj);
    free(g->weight);
    memset(g, 0, sizeof *g);
}
