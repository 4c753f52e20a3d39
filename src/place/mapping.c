/* SPDX-License-Identifier: BSD-3-Clause */
/* mapping.c: tree distances, the cost of a mapping, coordinates of a core, and the
 * reference mappings TreeMatch is compared with.
 */
#include <stdlib.h>
#include <string.h>

#include "place.h"

static void digits(const struct place_topo *t, int leaf, int *d)
{
    for (int lv = t->nlevels - 1; lv >= 0; lv--) {
        d[lv] = leaf % t->arity[lv];
        leaf /= t->arity[lv];
    }
}

int place_distance(const struct place_topo *t, int a, int b)
{
    if (a == b)
        return 0;
    int da[PLACE_MAX_LEVELS], db[PLACE_MAX_LEVELS];
    digits(t, a, da);
    digits(t, b, db);
    for (int lv = 0; lv < t->nlevels; lv++)
        if (da[lv] != db[lv])
            return t->nlevels - lv;
    return 0;
}

double place_cost(const struct place_graph *g, const struct place_topo *t, const int *leaf)
{
    double cost = 0;
    for (int u = 0; u < g->n; u++)
        for (int k = g->start[u]; k < g->start[u + 1]; k++)
            if (u < g->adj[k])
                cost += g->weight[k] * place_distance(t, leaf[u], leaf[g->adj[k]]);
    return cost;
}

void place_coordinates(const struct place_topo *t, int leaf, int *host, int *package, int *core)
{
    int d[PLACE_MAX_LEVELS];
    digits(t, leaf, d);
    *host = t->host_level >= 0 ? d[t->host_level] : 0;
    *package = t->package_level >= 0 ? d[t->package_level] : 0;
    int from = t->package_level >= 0 ? t->package_level + 1 : t->host_level + 1;
    *core = 0;
    for (int lv = from; lv < t->nlevels; lv++) /* the oversubscription's "slot" level shares */
        if (strcmp(t->name[lv], "slot") != 0)  /* its core: it is no core of its own */
            *core = *core * t->arity[lv] + d[lv];
}

void place_packed(int n, int *leaf)
{
    for (int r = 0; r < n; r++)
        leaf[r] = r;
}

void place_round_robin(const struct place_topo *t, int n, int *leaf)
{
    int top = t->arity[0], per = t->leaves / top;
    for (int r = 0; r < n; r++)
        leaf[r] = (r % top) * per + r / top;
}

void place_random(int n, int leaves, unsigned seed, int *leaf)
{
    int *cores = malloc(leaves * sizeof *cores);
    for (int i = 0; i < leaves; i++)
        cores[i] = i;
    for (int i = leaves - 1; i > 0; i--) {
        int j = (int)(rand_r(&seed) % (unsigned)(i + 1)), tmp = cores[i];
        cores[i] = cores[j];
        cores[j] = tmp;
    }
    for (int r = 0; r < n; r++)
        leaf[r] = cores[r];
    free(cores);
}
