/* test_tree.c: the binomial tree for source 0 and destinations 1..6 is the paper's Figure 1
 * (its caption says five destinations, its edges reach six nodes: the edges are followed):
 * 0 -> 4, then 0 -> 2 and 4 -> 6, then 0 -> 1, 2 -> 3, 4 -> 5. And the point-to-point
 * "tree" sends from the source to everyone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "dynbcast.h"

/* Edges "a->b" by round (depth of b), in order, into out. */
static void edges(enum dynb_tree tree, int index, int end, int depth, char rounds[4][128])
{
    int children[16], ends[16], n = dynb_tree_children(tree, index, end, children, ends);
    for (int c = 0; c < n; c++) {
        char e[16];
        snprintf(e, sizeof e, "%d->%d ", index, children[c]);
        strcat(rounds[depth + c], e);
        edges(tree, children[c], ends[c], depth + c + 1, rounds);
    }
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The edges of a round in sorted order ("0->2 4->6 "). */
static void sort_round(char *round)
{
    char copy[128], *tokens[16], *save = NULL;
    int n = 0;
    snprintf(copy, sizeof copy, "%s", round);
    for (char *t = strtok_r(copy, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save))
        tokens[n++] = t;
    qsort(tokens, n, sizeof *tokens, by_text);
    char out[128] = "";
    for (int i = 0; i < n; i++) {
        strcat(out, tokens[i]);
        strcat(out, " ");
    }
    strcpy(round, out);
}

int main(void)
{
    char rounds[4][128] = {"", "", "", ""};
    edges(DYNB_BINOMIAL, 0, 7, 0, rounds);
    for (int r = 0; r < 4; r++)
        sort_round(rounds[r]);
    printf("round 1: %s\nround 2: %s\nround 3: %s\n", rounds[0], rounds[1], rounds[2]);
    CHECK_EQ("round 1: 0->4", 0, strcmp(rounds[0], "0->4 "));
    CHECK_EQ("round 2: 0->2, 4->6", 0, strcmp(rounds[1], "0->2 4->6 "));
    CHECK_EQ("round 3: 0->1, 2->3, 4->5", 0, strcmp(rounds[2], "0->1 2->3 4->5 "));
    int children[16], ends[16];
    CHECK_EQ("the source sends 3 messages for 6 destinations", 3,
             dynb_tree_children(DYNB_BINOMIAL, 0, 7, children, ends));
    CHECK_EQ("point-to-point: 6 messages", 6, dynb_tree_children(DYNB_P2P, 0, 7, children, ends));
    CHECK_EQ("one destination: one message", 1,
             dynb_tree_children(DYNB_BINOMIAL, 0, 2, children, ends));

    /* The threshold (include/dynbcast.h): s (k - L) >= 64 KiB x L. */
    struct dynb_options def = {DYNB_BINOMIAL, 0, 0, 0, 0, 0}, always = def, p2p = def;
    always.tree_min_destinations = 1;
    p2p.tree = DYNB_P2P;
    CHECK_EQ("7 x 48 KiB: a tree (4 x 48 KiB = 3 x 64 KiB)", 1, dynb_uses_tree(&def, 7, 49152));
    CHECK_EQ("7 x 47 KiB: point-to-point", 0, dynb_uses_tree(&def, 7, 48128));
    CHECK_EQ("6 x 32 KiB (a 4 x 4 Cholesky's b = 64 tile): point-to-point", 0,
             dynb_uses_tree(&def, 6, 32768));
    CHECK_EQ("14 x 32 KiB (8 x 8): a tree", 1, dynb_uses_tree(&def, 14, 32768));
    CHECK_EQ("3 x 128 KiB: a tree", 1, dynb_uses_tree(&def, 3, 131072));
    CHECK_EQ("63 x 4 KiB: point-to-point", 0, dynb_uses_tree(&def, 63, 4096));
    CHECK_EQ("2 destinations: point-to-point", 0, dynb_uses_tree(&def, 2, 1 << 30));
    CHECK_EQ("threshold off: 3 x 1 byte is a tree", 1, dynb_uses_tree(&always, 3, 1));
    CHECK_EQ("point-to-point mode: never", 0, dynb_uses_tree(&p2p, 63, 1 << 30));
    return CHECK_DONE();
}
/* SPDX-License-Identifier: BSD-3-Clause */
