/* SPDX-License-Identifier: BSD-3-Clause */
/* treematch.c: TreeMatch (Jeannot, Mercier, Tessier), our implementation.
 *
 * Bottom-up over the topology tree: at the core level, ranks are grouped into packages of
 * the package's arity, greedily: the heaviest unplaced rank seeds a group, which then takes
 * the rank with the most traffic toward the group so far, until full (ranks without any
 * traffic fill the remaining places); swaps between groups then improve it. Each group becomes one
 * vertex of a coarser graph (traffic between groups summed) and the next level groups those, up to
 * the root. A rank's core is then read top-down from its position in each group. Groups are built
 * from the sparse graph: O(edges) per level plus O(n) per group for seeds, so 8192 ranks
 * place in well under a second.
 */
#include <stdlib.h>
#include <string.h>

#include "place.h"

struct by_weight {
    double total;
    int v;
};

static int heavier_first(const void *x, const void *y)
{
    const struct by_weight *a = x, *b = y;
    if (a->total != b->total)
        return a->total < b->total ? 1 : -1;
    return (a->v > b->v) - (a->v < b->v);
}

/* Groups the n vertices of g into n / arity groups of arity; writes group and position. */
static void greedy_groups(const struct place_graph *g, int arity, int *group, int *pos)
{
    int n = g->n;
    struct by_weight *order = malloc(n * sizeof *order);
    for (int v = 0; v < n; v++) {
        order[v] = (struct by_weight){0, v};
        for (int k = g->start[v]; k < g->start[v + 1]; k++)
            order[v].total += g->weight[k];
    }
    qsort(order, n, sizeof *order, heavier_first);
    char *placed = calloc(n, 1);
    double *affinity = calloc(n, sizeof *affinity);
    int *touched = malloc((size_t)(g->start[n] + 1) * sizeof *touched), ntouched = 0;
    int next_free = 0, gid = 0;
    for (int s = 0; s < n; s++) {
        int seed = order[s].v;
        if (placed[seed])
            continue;
        int member = seed;
        for (int p = 0; p < arity; p++) {
            if (p > 0) {
                /* The unplaced vertex with the most traffic toward the group; among equals,
                 * the one with the least traffic toward other unplaced vertices (it loses
                 * least by joining), then the lowest number. */
                member = -1;
                double best = 0, best_outside = 0;
                for (int i = 0; i < ntouched; i++) {
                    int c = touched[i];
                    if (placed[c] || affinity[c] < best || affinity[c] <= 0)
                        continue;
                    double outside = 0;
                    for (int k = g->start[c]; k < g->start[c + 1]; k++)
                        if (!placed[g->adj[k]])
                            outside += g->weight[k];
                    if (affinity[c] > best || outside < best_outside ||
                        (outside == best_outside && c < member)) {
                        best = affinity[c];
                        best_outside = outside;
                        member = c;
                    }
                }
                if (member < 0) { /* no traffic toward the group: the next unplaced one */
                    while (next_free < n && placed[order[next_free].v])
                        next_free++;
                    if (next_free == n)
                        break;
                    member = order[next_free].v;
                }
            }
            placed[member] = 1;
            group[member] = gid;
            pos[member] = p;
            for (int k = g->start[member]; k < g->start[member + 1]; k++) {
                int c = g->adj[k];
                if (affinity[c] == 0)
                    touched[ntouched++] = c;
                affinity[c] += g->weight[k];
            }
        }
        for (int i = 0; i < ntouched; i++)
            affinity[touched[i]] = 0;
        ntouched = 0;
        gid++;
    }
    free(order);
    free(placed);
    free(affinity);
    free(touched);
}

/* Traffic between x and the members of group gid. */
static double toward(const struct place_graph *g, const int *group, int x, int gid)
{
    double w = 0;
    for (int k = g->start[x]; k < g->start[x + 1]; k++)
        if (group[g->adj[k]] == gid)
            w += g->weight[k];
    return w;
}

static double between(const struct place_graph *g, int u, int v)
{
    for (int k = g->start[u]; k < g->start[u + 1]; k++)
        if (g->adj[k] == v)
            return g->weight[k];
    return 0;
}

/* Improves a grouping by swaps: u (group A) and v (group B) trade places when that keeps
 * more traffic inside groups: gain = w(u,B) + w(v,A) - w(u,A) - w(v,B) - 2 w(u,v). A few
 * passes over the groups each vertex talks to (the greedy grouping misses e.g. the 2x2
 * blocks of a stencil). */
static void refine(const struct place_graph *g, int arity, int *group, int *pos)
{
    int n = g->n, ngroups = n / arity;
    int *members = malloc((size_t)n * sizeof *members);
    for (int v = 0; v < n; v++)
        members[group[v] * arity + pos[v]] = v;
    for (int pass = 0; pass < 8; pass++) {
        int swaps = 0;
        for (int u = 0; u < n; u++) {
            int a = group[u];
            double ua = toward(g, group, u, a);
            for (int k = g->start[u]; k < g->start[u + 1]; k++) {
                int b = group[g->adj[k]];
                if (b == a)
                    continue;
                double ub = toward(g, group, u, b), best = 1e-9 * (ua + ub + 1);
                int best_v = -1;
                for (int i = 0; i < arity; i++) {
                    int v = members[b * arity + i];
                    double gain = ub + toward(g, group, v, a) - ua - toward(g, group, v, b) -
                                  2 * between(g, u, v);
                    if (gain > best) {
                        best = gain;
                        best_v = v;
                    }
                }
                if (best_v < 0)
                    continue;
                int v = best_v, pu = pos[u], pv = pos[v];
                members[a * arity + pu] = v;
                members[b * arity + pv] = u;
                group[u] = b;
                pos[u] = pv;
                group[v] = a;
                pos[v] = pu;
                swaps++;
                break;
            }
        }
        if (swaps == 0)
            break;
    }
    (void)ngroups;
    free(members);
}

/* The graph of groups: traffic between groups summed, traffic inside a group dropped. */
static void coarsen(const struct place_graph *g, const int *group, int ngroups,
                    struct place_graph *out)
{
    size_t m = 0, cap = (size_t)g->start[g->n] / 2 + 1;
    int *src = malloc(cap * sizeof *src), *dst = malloc(cap * sizeof *dst);
    double *w = malloc(cap * sizeof *w);
    for (int u = 0; u < g->n; u++) {
        for (int k = g->start[u]; k < g->start[u + 1]; k++) {
            int v = g->adj[k];
            if (u < v && group[u] != group[v]) {
                src[m] = group[u];
                dst[m] = group[v];
                w[m++] = g->weight[k];
            }
        }
    }
    place_graph_build(out, ngroups, src, dst, w, m);
    free(src);
    free(dst);
    free(w);
}

/* g with n padded to `leaves` isolated vertices. */
static void padded(const struct place_graph *g, int leaves, struct place_graph *out)
{
    out->n = leaves;
    out->start = malloc((leaves + 1) * sizeof *out->start);
    memcpy(out->start, g->start, (g->n + 1) * sizeof *out->start);
    for (int v = g->n + 1; v <= leaves; v++)
        out->start[v] = g->start[g->n];
    size_t m = (size_t)g->start[g->n];
    out->adj = malloc((m + 1) * sizeof *out->adj);
    out->weight = malloc((m + 1) * sizeof *out->weight);
    memcpy(out->adj, g->adj, m * sizeof *out->adj);
    memcpy(out->weight, g->weight, m * sizeof *out->weight);
}

static int treematch_once(const struct place_graph *g, const struct place_topo *t, int *leaf)
{
    int L = t->nlevels;
    if (g->n > t->leaves || L < 1)
        return -1;
    int *group[PLACE_MAX_LEVELS], *pos[PLACE_MAX_LEVELS];
    struct place_graph cur;
    padded(g, t->leaves, &cur);
    for (int lv = L - 1; lv >= 0; lv--) {
        int arity = t->arity[lv], ngroups = cur.n / arity;
        group[lv] = malloc(cur.n * sizeof(int));
        pos[lv] = malloc(cur.n * sizeof(int));
        greedy_groups(&cur, arity, group[lv], pos[lv]);
        refine(&cur, arity, group[lv], pos[lv]);
        struct place_graph next;
        coarsen(&cur, group[lv], ngroups, &next);
        place_graph_free(&cur);
        cur = next;
    }
    place_graph_free(&cur);
    /* leaf = sum over levels of (position in the group) x (cores below that level) */
    for (int r = 0; r < g->n; r++) {
        int e = r, below = 1, index = 0;
        for (int lv = L - 1; lv >= 0; lv--) {
            index += pos[lv][e] * below;
            below *= t->arity[lv];
            e = group[lv][e];
        }
        leaf[r] = index;
    }
    for (int lv = 0; lv < L; lv++) {
        free(group[lv]);
        free(pos[lv]);
    }
    return 0;
}

/* Ties (equal traffic, common in regular patterns) decide much of the greedy grouping, so
 * TreeMatch runs a few times (8 up to 1024 ranks, 2 above) with weights perturbed by less than 0.1
 * % (a different, reproducible tie order each time) and keeps the cheapest mapping under the real
 * weights. */
int place_treematch(const struct place_graph *g, const struct place_topo *t, int *leaf)
{
    const unsigned RUNS = g->n <= 1024 ? 8 : 2; /* keep large cases well under seconds */
    if (treematch_once(g, t, leaf) != 0)
        return -1;
    double best = place_cost(g, t, leaf);
    size_t m = (size_t)g->start[g->n];
    struct place_graph noisy = *g;
    noisy.weight = malloc((m + 1) * sizeof *noisy.weight);
    int *candidate = malloc((g->n + 1) * sizeof *candidate);
    for (unsigned run = 1; run < RUNS; run++) {
        unsigned seed = run;
        for (size_t k = 0; k < m; k++)
            noisy.weight[k] = g->weight[k] * (1 + 1e-3 * (rand_r(&seed) / (double)RAND_MAX));
        /* keep the noise symmetric: w(u,v) must equal w(v,u) */
        for (int u = 0; u < g->n; u++)
            for (int k = g->start[u]; k < g->start[u + 1]; k++) {
                int v = g->adj[k];
                if (v < u)
                    for (int j = g->start[v]; j < g->start[v + 1]; j++)
                        if (g->adj[j] == u)
                            noisy.weight[k] = noisy.weight[j];
            }
        treematch_once(&noisy, t, candidate);
        double cost = place_cost(g, t, candidate);
        if (cost < best) {
            best = cost;
            memcpy(leaf, candidate, g->n * sizeof *leaf);
        }
    }
    free(noisy.weight);
    free(candidate);
    return 0;
}
