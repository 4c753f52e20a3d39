/* test_treematch.c: TreeMatch on matrices whose optimal placement is known (a ring, two
 * interleaved cliques, a 2D stencil), against Scotch on a 3D stencil and a random sparse
 * matrix (at most 5 % worse), and the distances and coordinates of the tree.
 */
#include <stdlib.h>

#include "../check.h"
#include "place.h"

struct edges {
    int src[4096], dst[4096];
    double w[4096];
    size_t n;
};

static void edge(struct edges *e, int a, int b, double w)
{
    e->src[e->n] = a;
    e->dst[e->n] = b;
    e->w[e->n++] = w;
}

static double treematch_cost(struct edges *e, int n, const char *topology, int *leaf)
{
    struct place_topo t;
    struct place_graph g;
    char err[256];
    if (place_topo_load(&t, topology, err, sizeof err) != 0) {
        printf("FAIL %s\n", err);
        exit(1);
    }
    place_graph_build(&g, n, e->src, e->dst, e->w, e->n);
    place_treematch(&g, &t, leaf);
    double cost = place_cost(&g, &t, leaf);
    place_graph_free(&g);
    return cost;
}

static int package_of(int leaf)
{
    return leaf / 4;
}

static void grid(struct edges *e, int nx, int ny, int nz)
{
    for (int x = 0; x < nx; x++)
        for (int y = 0; y < ny; y++)
            for (int z = 0; z < nz; z++) {
                int r = (x * ny + y) * nz + z;
                if (x + 1 < nx)
                    edge(e, r, r + ny * nz, 1);
                if (y + 1 < ny)
                    edge(e, r, r + nz, 1);
                if (z + 1 < nz)
                    edge(e, r, r + 1, 1);
            }
}

int main(void)
{
    int leaf[64];
    struct edges e = {0};

    /* Ring of 8 (weight 1), 2 packages of 4 cores: best is two arcs of 4. */
    for (int r = 0; r < 8; r++)
        edge(&e, r, (r + 1) % 8, 1);
    CHECK_EQ("ring of 8 on pack:2 core:4: 6 edges inside packages, 2 across", 10,
             treematch_cost(&e, 8, "pack:2 core:4", leaf));

    /* Two cliques {0,2,4,6} and {1,3,5,7}: each in one package. */
    e.n = 0;
    for (int a = 0; a < 8; a++)
        for (int b = a + 2; b < 8; b += 2)
            edge(&e, a, b, 10);
    CHECK_EQ("two cliques: 12 edges of 10, all inside a package", 120,
             treematch_cost(&e, 8, "pack:2 core:4", leaf));
    int same = 1;
    for (int r = 2; r < 8; r += 2)
        same &= package_of(leaf[r]) == package_of(leaf[0]);
    CHECK_EQ("the even clique shares a package", 1, same);

    /* 4x4 stencil, 4 packages of 4: 2x2 blocks cut 8 edges (cost 16 + 8 x 2 = 32). */
    e.n = 0;
    grid(&e, 4, 4, 1);
    CHECK_EQ("4x4 stencil on pack:4 core:4: 2x2 blocks", 32,
             treematch_cost(&e, 16, "pack:4 core:4", leaf));

    /* Distances and coordinates on node:2 package:2 core:4. */
    struct place_topo t;
    char err[256];
    place_topo_load(&t, "node:2 package:2 core:4", err, sizeof err);
    CHECK_EQ("3 levels", 3, t.nlevels);
    CHECK_EQ("same package", 1, place_distance(&t, 0, 3));
    CHECK_EQ("same node, other package", 2, place_distance(&t, 0, 4));
    CHECK_EQ("other node", 3, place_distance(&t, 0, 8));
    int host, package, core;
    place_coordinates(&t, 13, &host, &package, &core);
    CHECK_EQ("core 13: node 1", 1, host);
    CHECK_EQ("core 13: package 1", 1, package);
    CHECK_EQ("core 13: core 1", 1, core);

    /* Against Scotch: 3D stencil 4x4x4 and a random sparse matrix on 64 cores. */
    struct place_graph g;
    place_topo_load(&t, "node:4 package:2 core:8", err, sizeof err);
    int other[64];
    e.n = 0;
    grid(&e, 4, 4, 4);
    place_graph_build(&g, 64, e.src, e.dst, e.w, e.n);
    place_treematch(&g, &t, leaf);
    place_scotch(&g, &t, other);
    CHECK_LE("3D stencil: TreeMatch within 5 % of Scotch", 1.05 * place_cost(&g, &t, other),
             place_cost(&g, &t, leaf));
    place_graph_free(&g);
    e.n = 0;
    unsigned seed = 7;
    for (int i = 0; i < 400; i++)
        edge(&e, rand_r(&seed) % 64, rand_r(&seed) % 64, 1 + rand_r(&seed) % 1000);
    place_graph_build(&g, 64, e.src, e.dst, e.w, e.n);
    place_treematch(&g, &t, leaf);
    place_scotch(&g, &t, other);
    CHECK_LE("random sparse: TreeMatch within 5 % of Scotch", 1.05 * place_cost(&g, &t, other),
             place_cost(&g, &t, leaf));
    place_graph_free(&g);
    return CHECK_DONE();
}
/* SPDX-License-Identifier: BSD-3-Clause */
