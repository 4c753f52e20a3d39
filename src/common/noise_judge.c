/* SPDX-License-Identifier: BSD-3-Clause */
/* noise_judge.c: the judgement of noise_judge.h:
 *
 *   spread = the larger of the two sides' ranges (max - min over a side's values)
 *   gap    = how far apart the two ranges lie (<= 0 when they overlap)
 *   t      = Welch's t of the two sides' means
 *   changed  when the ranges do not overlap and either lie apart by more than the spread or
 *            t >= 5, and the difference is material; within noise otherwise; not judged
 *            with one value on a side.
 */
#include "noise_judge.h"

#include <math.h>

void noise_judge(const double *a, int na, const double *b, int nb, double base, double min_share,
                 struct noise_judgement *out)
{
    double lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
    double sum_a = 0, sum_b = 0;
    for (int i = 0; i < na; i++) {
        sum_a += a[i];
        lo_a = a[i] < lo_a ? a[i] : lo_a, hi_a = a[i] > hi_a ? a[i] : hi_a;
    }
    for (int i = 0; i < nb; i++) {
        sum_b += b[i];
        lo_b = b[i] < lo_b ? b[i] : lo_b, hi_b = b[i] > hi_b ? b[i] : hi_b;
    }
    out->mean_a = na ? sum_a / na : 0;
    out->mean_b = nb ? sum_b / nb : 0;
    out->delta = out->mean_b - out->mean_a;
    out->spread = fmax(hi_a - lo_a, hi_b - lo_b);
    out->gap = fmax(lo_b - hi_a, lo_a - hi_b);
    if (lo_a == hi_b && hi_a == lo_b) {
        out->verdict = NOISE_SAME;
        return;
    }
    if (na < 2 || nb < 2) {
        out->verdict = NOISE_UNJUDGED;
        return;
    }
    if (base < 0)
        base = fmax(fabs(out->mean_a), fabs(out->mean_b));
    int material = fabs(out->delta) >= min_share * base;
    double va = 0, vb = 0;
    for (int i = 0; i < na; i++)
        va += (a[i] - out->mean_a) * (a[i] - out->mean_a);
    for (int i = 0; i < nb; i++)
        vb += (b[i] - out->mean_b) * (b[i] - out->mean_b);
    double se = sqrt(va / (na - 1) / na + vb / (nb - 1) / nb);
    int apart = out->gap > 0 && (out->gap > out->spread || fabs(out->delta) >= 5 * se);
    out->verdict = apart && material ? NOISE_CHANGED : NOISE_WITHIN;
}
