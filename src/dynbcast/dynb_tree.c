/* SPDX-License-Identifier: BSD-3-Clause */
/* dynb_tree.c: the broadcast trees, behind one function so runs can compare them.
 *
 * Binomial (the paper's Figure 1): the node holding range [i, end) sends to the middle of
 * its range, ceil((end - i) / 2) ahead, which takes the upper half, and goes on with the
 * lower half: for 0 -> {1..6}, 0 sends to 4, 2, 1; 4 sends to 6, 5; 2 sends to 3.
 * Point-to-point: the sender sends to everyone itself. Binary and pipelined trees (the
 * paper's future work) would go here.
 */
#include "dynbcast.h"

int dynb_tree_children(enum dynb_tree tree, int index, int end, int *children, int *child_end)
{
    int n = 0;
    if (tree == DYNB_P2P) {
        for (int c = index + 1; c < end; c++) {
            children[n] = c;
            child_end[n++] = c + 1;
        }
        return n;
    }
    int hi = end;
    while (hi - index > 1) {
        int mid = index + (hi - index + 1) / 2;
        children[n] = mid;
        child_end[n++] = hi;
        hi = mid;
    }
    return n;
}
