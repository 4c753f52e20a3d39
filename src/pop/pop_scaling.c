/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_scaling.c: the scaling table's arithmetic (pop_scaling.h). With T_n the run's length
 * and U_n the useful time summed over the n ranks, against the reference column (ref):
 *   strong: speedup = T_ref / T_n, computation scalability = U_ref / U_n;
 *   weak:   speedup = (T_ref / T_n) x (n / n_ref), computation scalability =
 *           (U_ref / n_ref) / (U_n / n) (useful time per rank);
 * global efficiency = parallel efficiency x computation scalability (= speedup x n_ref / n
 * x the reference's parallel efficiency, strong).
 */
#include "pop_scaling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[POP_METRICS] = {"speedup",
                                               "global_efficiency",
                                               "parallel_efficiency",
                                               "load_balance",
                                               "communication_efficiency",
                                               "serialization_efficiency",
                                               "transfer_efficiency",
                                               "computation_scalability"};
static const char *const titles[POP_METRICS] = {
    "speedup",         "global efficiency", " parallel efficiency", "  load balance",
    "  communication", "   serialization",  "   transfer",          " computation scalab."};

const char *pop_metric_name(enum pop_metric m)
{
    return names[m];
}

const char *pop_metric_title(enum pop_metric m)
{
    return titles[m];
}

void pop_point_of_run(struct pop_point *p, const struct pop_factors *f)
{
    p->ranks = f->ranks;
    p->run = f->run;
    p->sum_useful = f->sum_useful;
    p->load_balance = f->load_balance;
    p->communication = f->communication;
    p->parallel = f->parallel;
    p->serialization = f->serialization;
    p->transfer = f->transfer;
}

static int by_ranks(const void *a, const void *b)
{
    return ((const struct pop_point *)a)->ranks - ((const struct pop_point *)b)->ranks;
}

int pop_scaling_table(struct pop_point *points, int n, int ref_ranks, int weak, struct pop_table *t,
                      char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (n < 1) {
        snprintf(err, errlen, "no runs to compare");
        return -1;
    }
    qsort(points, (size_t)n, sizeof *points, by_ranks);
    t->points = points;
    t->n = n;
    t->weak = weak;
    t->ref = ref_ranks ? -1 : 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && points[i].ranks == points[i - 1].ranks) {
            snprintf(err, errlen, "%s and %s both ran on %d ranks; give one run per rank count",
                     points[i - 1].source, points[i].source, points[i].ranks);
            return -1;
        }
        if (ref_ranks && points[i].ranks == ref_ranks)
            t->ref = i;
    }
    if (t->ref < 0) {
        snprintf(err, errlen, "--ref: no run on %d ranks among those given", ref_ranks);
        return -1;
    }
    for (int m = 0; m < POP_METRICS; m++) {
        t->value[m] = malloc((size_t)n * sizeof(double));
        if (!t->value[m]) {
            pop_scaling_free(t);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    const struct pop_point *r = &points[t->ref];
    for (int i = 0; i < n; i++) {
        const struct pop_point *p = &points[i];
        double scale = weak ? (double)p->ranks / r->ranks : 1;
        double speedup = p->run > 0 ? r->run / p->run * scale : -1;
        double computation = -1;
        if (p->sum_useful > 0)
            computation = weak ? (r->sum_useful / r->ranks) / (p->sum_useful / p->ranks)
                               : r->sum_useful / p->sum_useful;
        t->value[POP_SPEEDUP][i] = speedup;
        t->value[POP_PARALLEL][i] = p->parallel;
        t->value[POP_LOAD_BALANCE][i] = p->load_balance;
        t->value[POP_COMMUNICATION][i] = p->communication;
        t->value[POP_SERIALIZATION][i] = p->serialization;
        t->value[POP_TRANSFER][i] = p->transfer;
        t->value[POP_COMPUTATION][i] = computation;
        t->value[POP_GLOBAL][i] = computation >= 0 ? p->parallel * computation : -1;
    }
    return 0;
}

void pop_scaling_free(struct pop_table *t)
{
    for (int m = 0; m < POP_METRICS; m++) {
        free(t->value[m]);
        t->value[m] = NULL;
    }
}
