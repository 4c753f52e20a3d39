/* SPDX-License-Identifier: BSD-3-Clause */
/* scotch.c: the same problem given to Scotch (SCOTCH_graphMap on a tleaf architecture
 * with the topology's arities; a link at level i costs nlevels - i, as our distance), to
 * check TreeMatch against an established mapper.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <scotch.h>

#include "place.h"

int place_scotch(const struct place_graph *g, const struct place_topo *t, int *leaf)
{
    int n = g->n, m = g->start[n], rc = -1;
    double max = 0;
    for (int k = 0; k < m; k++)
        max = g->weight[k] > max ? g->weight[k] : max;
    SCOTCH_Num *vert = malloc((n + 1) * sizeof *vert), *edge = malloc((m + 1) * sizeof *edge),
               *load = malloc((m + 1) * sizeof *load), *part = malloc((n + 1) * sizeof *part);
    for (int v = 0; v <= n; v++)
        vert[v] = g->start[v];
    for (int k = 0; k < m; k++) {
        edge[k] = g->adj[k];
        load[k] = (SCOTCH_Num)fmax(1, round(1e6 * g->weight[k] / (max > 0 ? max : 1)));
    }
    SCOTCH_Num sizes[PLACE_MAX_LEVELS], links[PLACE_MAX_LEVELS];
    for (int lv = 0; lv < t->nlevels; lv++) {
        sizes[lv] = t->arity[lv];
        links[lv] = t->nlevels - lv;
    }
    SCOTCH_Graph graph;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_graphInit(&graph);
    SCOTCH_archInit(&arch);
    SCOTCH_stratInit(&strat);
    if (SCOTCH_graphBuild(&graph, 0, n, vert, NULL, NULL, NULL, m, edge, load) == 0 &&
        SCOTCH_archTleaf(&arch, t->nlevels, sizes, links) == 0 &&
        SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE, t->leaves,
                                  0.0) == 0 &&
        SCOTCH_graphMap(&graph, &arch, &strat, part) == 0) {
        for (int v = 0; v < n; v++)
            leaf[v] = (int)part[v];
        rc = 0;
    }
    SCOTCH_stratExit(&strat);
    SCOTCH_archExit(&arch);
    SCOTCH_graphExit(&graph);
    free(vert);
    free(edge);
    free(load);
    free(part);
    return rc;
}
