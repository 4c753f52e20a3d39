/* SPDX-License-Identifier: BSD-3-Clause */
/* place_speed.c: TreeMatch's placement time and quality on synthetic matrices: a 3D
 * 7-point stencil and a random sparse matrix (8 random peers per rank), at 64, 1024 and
 * 8192 ranks on trees of 8-core packages, 2 packages per node. Prints milliseconds and the
 * cost against round-robin and Scotch (skipped above 1024 ranks unless --scotch).
 * Usage: place_speed [--scotch]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "place.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct edges {
    int *src, *dst;
    double *w;
    size_t n, cap;
};

static void edge(struct edges *e, int a, int b, double w)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 1024;
        e->src = realloc(e->src, e->cap * sizeof *e->src);
        e->dst = realloc(e->dst, e->cap * sizeof *e->dst);
        e->w = realloc(e->w, e->cap * sizeof *e->w);
    }
    e->src[e->n] = a;
    e->dst[e->n] = b;
    e->w[e->n++] = w;
}

static void stencil(struct edges *e, int n)
{
    int side = 1;
    while (side * side * side < n)
        side++;
    for (int r = 0; r < n; r++) {
        int x = r / (side * side), y = (r / side) % side, z = r % side;
        if (z + 1 < side && r + 1 < n)
            edge(e, r, r + 1, 8192);
        if (y + 1 < side && r + side < n)
            edge(e, r, r + side, 8192);
        if (x + 1 < side && r + side * side < n)
            edge(e, r, r + side * side, 8192);
    }
}

static void random_sparse(struct edges *e, int n)
{
    unsigned seed = 42;
    for (int r = 0; r < n; r++)
        for (int k = 0; k < 8; k++)
            edge(e, r, rand_r(&seed) % n, 1 + rand_r(&seed) % 65536);
}

int main(int argc, char **argv)
{
    int with_scotch = argc > 1 && strcmp(argv[1], "--scotch") == 0;
    static const int sizes[] = {64, 1024, 8192};
    printf("%-8s %-10s %12s %14s %12s %14s\n", "ranks", "matrix", "TreeMatch ms", "cost vs rr",
           "Scotch ms", "TM vs Scotch");
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        char desc[64];
        snprintf(desc, sizeof desc, "node:%d package:2 core:8", n / 16);
        struct place_topo t;
        char err[256];
        if (place_topo_load(&t, desc, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        for (int m = 0; m < 2; m++) {
            struct edges e = {0};
            if (m == 0)
                stencil(&e, n);
            else
                random_sparse(&e, n);
            struct place_graph g;
            place_graph_build(&g, n, e.src, e.dst, e.w, e.n);
            int *leaf = malloc(n * sizeof *leaf), *other = malloc(n * sizeof *other);
            double t0 = now();
            place_treematch(&g, &t, leaf);
            double tm_ms = (now() - t0) * 1e3, tm = place_cost(&g, &t, leaf);
            place_round_robin(&t, n, other);
            double rr = place_cost(&g, &t, other);
            printf("%-8d %-10s %12.1f %14.3f", n, m ? "random" : "3D stencil", tm_ms, tm / rr);
            if (with_scotch || n <= 1024) {
                t0 = now();
                place_scotch(&g, &t, other);
                double sc_ms = (now() - t0) * 1e3;
                printf(" %12.1f %14.3f\n", sc_ms, tm / place_cost(&g, &t, other));
            } else {
                printf(" %12s %14s\n", "-", "-");
            }
            place_graph_free(&g);
            free(leaf);
            free(other);
            free(e.src);
            free(e.dst);
            free(e.w);
        }
    }
    return 0;
}
