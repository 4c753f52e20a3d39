/* SPDX-License-Identifier: BSD-3-Clause */
/* noise_judge.h: whether two samples of a figure differ beyond the run-to-run noise, the
 * judgement of `mpilens diff` (docs/diff.md, "When is a change real"), shared with
 * `mpilens site trend`.
 */
#ifndef NOISE_JUDGE_H
#define NOISE_JUDGE_H

enum noise_verdict {
    NOISE_CHANGED,  /* the ranges apart by more than the spread (or Welch's t >= 5), material */
    NOISE_WITHIN,   /* within the spread, or too small to matter */
    NOISE_UNJUDGED, /* one value on a side: the spread is unknown */
    NOISE_SAME      /* every value equal */
};

struct noise_judgement {
    double mean_a, mean_b, delta, spread, gap;
    enum noise_verdict verdict;
};

/* Judges sample B (NB values) against A (NA values). A change is material when |mean B -
 * mean A| is at least MIN_SHARE of BASE (BASE < 0: of the larger |mean|). */
void noise_judge(const double *a, int na, const double *b, int nb, double base, double min_share,
                 struct noise_judgement *out);

#endif
