/* SPDX-License-Identifier: BSD-3-Clause */
/* tune_rules.c: Open MPI 4.1's dynamic rules file for the algorithms `mpilens tune` chose.
 *
 * The classic format coll tuned reads (coll_tuned_dynamic_rules_filename, with
 * coll_tuned_use_dynamic_rules=1), numbers separated by white space:
 *   NCOL                      collectives in the file
 *   COLLID NCOMSIZES          per collective (ALLREDUCE 2, ALLTOALL 3, ...)
 *   COMSIZE NMSGSIZES         per communicator size: the rules of communicators of at least
 *                             COMSIZE ranks (the largest that fits is used)
 *   MSGSIZE ALG FANINOUT SEGSIZE   per message size, ascending: from MSGSIZE bytes on (the
 *                             last that fits is used), ALG (0: the fixed decision)
 * A measured size M gets its algorithm from M/2 to 2M (between two measured sizes the
 * boundary is their geometric mean), the fixed decision elsewhere; a communicator size S
 * its rules, S + 1 and more the fixed decision again: nothing is claimed that was not
 * measured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_rules.h"

int tune_ompi_collective(const char *op)
{
    static const struct {
        const char *op;
        int id;
    } ids[] = {{"Allgather", 0}, {"Allreduce", 2}, {"Alltoall", 3},
               {"Barrier", 6},   {"Bcast", 7},     {"Reduce", 11}};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (strcmp(ids[i].op, op) == 0)
            return ids[i].id;
    return -1;
}

long tune_ompi_msg(const char *op, long bytes, int size)
{
    if (strcmp(op, "Alltoall") == 0 || strcmp(op, "Allgather") == 0)
        return bytes * size; /* type size x count x communicator size */
    return bytes;
}

static int by_rule(const void *a, const void *b)
{
    const struct tune_rule *x = a, *y = b;
    int c = tune_ompi_collective(x->op) - tune_ompi_collective(y->op);
    if (c)
        return c;
    if (x->size != y->size)
        return x->size - y->size;
    return x->msg < y->msg ? -1 : x->msg > y->msg;
}

/* The (start, algorithm) steps of the sorted rules R[0..N) of one communicator size. */
static int steps(const struct tune_rule *r, int n, long *start, int *alg)
{
    int k = 0;
    long first = r[0].msg / 2;
    if (first > 0) {
        start[k] = 0;
        alg[k++] = 0;
    }
    for (int i = 0; i < n; i++) {
        start[k] = i == 0 ? first : (long)sqrt((double)r[i - 1].msg * (double)r[i].msg) + 1;
        alg[k++] = r[i].alg;
    }
    start[k] = 2 * r[n - 1].msg + 1;
    alg[k++] = 0;
    return k;
}

int tune_write_ompi_rules(const struct tune_rule *rules, int n, FILE *f)
{
    struct tune_rule *r = malloc(((size_t)n + 1) * sizeof *r);
    long *start = malloc(((size_t)n + 2) * sizeof *start);
    int *alg = malloc(((size_t)n + 2) * sizeof *alg);
    if (!r || !start || !alg) {
        free(r), free(start), free(alg);
        return -1;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (tune_ompi_collective(rules[i].op) >= 0)
            r[m++] = rules[i];
    qsort(r, m, sizeof *r, by_rule);
    int ncol = 0;
    for (int i = 0; i < m; i++)
        ncol += i == 0 || strcmp(r[i].op, r[i - 1].op) != 0;
    fprintf(f, "%d\n", ncol);
    for (int i = 0; i < m;) {
        int end = i, nsizes = 0;
        while (end < m && strcmp(r[end].op, r[i].op) == 0) {
            nsizes += end == i || r[end].size != r[end - 1].size;
            end++;
        }
        fprintf(f, "%d\n%d\n", tune_ompi_collective(r[i].op), 2 * nsizes);
        for (int s = i; s < end;) {
            int e = s;
            while (e < end && r[e].size == r[s].size)
                e++;
            int k = steps(r + s, e - s, start, alg);
            fprintf(f, "%d\n%d\n", r[s].size, k);
            for (int j = 0; j < k; j++)
                fprintf(f, "%ld %d 0 0\n", start[j], alg[j]);
            fprintf(f, "%d\n1\n0 0 0 0\n", r[s].size + 1);
            s = e;
        }
        i = end;
    }
    free(r), free(start), free(alg);
    return ferror(f) ? -1 : 0;
}
