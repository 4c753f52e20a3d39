/* SPDX-License-Identifier: BSD-3-Clause */
/* place.h: process placement from a communication matrix (TreeMatch).
 *
 * A machine is a balanced tree (from hwloc): level 0 below the root (e.g. nodes), down to
 * cores. TreeMatch groups ranks bottom-up, level by level, so that the ranks that talk
 * most share the deepest subtree; each leaf (core) receives one rank. Costs are
 * bytes x distance, the distance of two cores being the number of levels from a core up
 * to their lowest common ancestor (1: same package, nlevels: different nodes).
 */
#ifndef LENS_PLACE_H
#define LENS_PLACE_H

#include <stddef.h>
#include <stdint.h>

#define PLACE_MAX_LEVELS 16

struct place_topo {
    int nlevels;
    int arity[PLACE_MAX_LEVELS];     /* children per object at each level, top first */
    char name[PLACE_MAX_LEVELS][32]; /* hwloc type names of the levels */
    int leaves;                      /* product of the arities */
    int host_level, package_level;   /* levels standing for hosts and packages, or -1 */
    char hosts[64][64];              /* host names when known (this machine, XML) */
    int nhosts;
};

/* Symmetric sparse weights: w(i,j) = traffic i->j + j->i, in CSR form. */
struct place_graph {
    int n;
    int *start;     /* n + 1 */
    int *adj;       /* neighbours */
    double *weight; /* weights */
};

/* Builds the symmetric graph of n ranks from (src, dst, value) triples. */
int place_graph_build(struct place_graph *g, int n, const int *src, const int *dst,
                      const double *value, size_t count);
void place_graph_free(struct place_graph *g);

/* Loads a topology: "this" (the machine running), an hwloc XML file (*.xml), or an hwloc
 * synthetic description ("node:4 package:2 core:4"). 0, or -1 with a message in err. */
int place_topo_load(struct place_topo *t, const char *spec, char *err, size_t errlen);
/* Puts a level of N hosts named HOSTS above the tree of one host T. 0, or -1 with ERR. */
int place_topo_hosts(struct place_topo *t, const char (*hosts)[64], int n, char *err,
                     size_t errlen);
/* Adds a bottom level of k ranks per core (oversubscription). */
void place_topo_oversubscribe(struct place_topo *t, int k);

/* TreeMatch: leaf[r] = the core of rank r (0..leaves-1). g->n <= t->leaves. 0 or -1. */
int place_treematch(const struct place_graph *g, const struct place_topo *t, int *leaf);
/* Reference mappings. */
void place_packed(int n, int *leaf); /* rank r on core r */
void place_round_robin(const struct place_topo *t, int n,
                       int *leaf); /* ranks spread over top level */
void place_random(int n, int leaves, unsigned seed, int *leaf);
/* Scotch's SCOTCH_graphMap on a tleaf architecture of the same tree. 0, or -1 if absent. */
int place_scotch(const struct place_graph *g, const struct place_topo *t, int *leaf);

/* Tree distance of two cores and the cost of a mapping. */
int place_distance(const struct place_topo *t, int a, int b);
double place_cost(const struct place_graph *g, const struct place_topo *t, const int *leaf);
/* Host index, package index within host, core index within package of a core. */
void place_coordinates(const struct place_topo *t, int leaf, int *host, int *package, int *core);

#endif
