/* SPDX-License-Identifier: BSD-3-Clause */
/* diff_judge.c: the runs' entries grouped into rows (one per thing matched across runs)
 * and each row judged (docs/diff.md, "When is a change real"; the judgement itself is
 * src/common/noise_judge.c, shared with `mpilens site trend`):
 *
 *   spread = the larger of the two sides' ranges (max - min over a side's runs)
 *   gap    = how far apart the two ranges lie (min of one side - max of the other; <= 0
 *            when they overlap)
 *   t      = Welch's t of the two sides' means (their difference over its standard error)
 *   changed      when the ranges do not overlap (gap > 0) and either lie apart by more than
 *                the spread (gap > spread) or t >= 5; and |mean B - mean A| is at least
 *                --min-share (default 2 %) of the larger side's MPI time (bytes: of the
 *                larger side's matrix bytes; an overall figure: of its own larger value)
 *   within noise otherwise;
 *   not judged   with one run on a side (the spread is unknown).
 *
 * With 3 runs a side and run-to-run noise alone, a row passes the first two tests about 8
 * times in a thousand (independent runs, lognormal noise of 20 % to 100 %, simulated; plain
 * non-overlap, the rank-sum test's most extreme outcome, happens 100 times in a thousand);
 * the materiality bound keeps the many small rows compared at once from raising alarms.
 * The t test catches a real change whose one side is tight and whose other side had one
 * slow run on a loaded machine (its range then wider than the gap).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "noise_judge.h"

static int by_key(const void *x, const void *y)
{
    const struct diff_entry *a = x, *b = y;
    if (a->section != b->section)
        return a->section - b->section;
    int c = strcmp(a->what, b->what);
    return c ? c : a->run - b->run;
}

/* The overall rows in the order they are shown. */
static int overall_rank(const char *what)
{
    static const char *const order[] = {"wall", "mpi_time", "mpi_share", "bytes", "waits"};
    for (int i = 0; i < 5; i++)
        if (strcmp(what, order[i]) == 0)
            return i;
    return 5;
}

static int by_change(const void *x, const void *y)
{
    const struct diff_row *a = x, *b = y;
    if (a->section != b->section)
        return a->section - b->section;
    if (a->section == DIFF_OVERALL)
        return overall_rank(a->what) - overall_rank(b->what);
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db)
        return da < db ? 1 : -1;
    return strcmp(a->what, b->what);
}

static void judge(const struct diff *d, struct diff_row *row)
{
    double sum_ca = 0, sum_cb = 0;
    for (int i = 0; i < d->na + d->nb; i++)
        *(i < d->na ? &sum_ca : &sum_cb) += row->counts[i];
    row->count_a = sum_ca / d->na;
    row->count_b = sum_cb / d->nb;
    double base = row->section == DIFF_OVERALL  ? -1 /* the larger mean */
                  : row->section == DIFF_MATRIX ? fmax(d->bytes_a, d->bytes_b)
                                                : fmax(d->mpi_a, d->mpi_b);
    struct noise_judgement j;
    noise_judge(row->values, d->na, row->values + d->na, d->nb, base, d->min_share, &j);
    row->mean_a = j.mean_a;
    row->mean_b = j.mean_b;
    row->delta = j.delta;
    row->spread = j.spread;
    row->gap = j.gap;
    static const enum diff_verdict verdicts[] = {[NOISE_CHANGED] = DIFF_CHANGED,
                                                 [NOISE_WITHIN] = DIFF_NOISE,
                                                 [NOISE_UNJUDGED] = DIFF_UNJUDGED,
                                                 [NOISE_SAME] = DIFF_SAME};
    row->verdict = verdicts[j.verdict];
}

int diff_judge(struct diff *d)
{
    int n = d->na + d->nb;
    qsort(d->entries, (size_t)d->nentries, sizeof *d->entries, by_key);
    for (int i = 0; i < d->nentries;) {
        int j = i;
        while (j < d->nentries && d->entries[j].section == d->entries[i].section &&
               strcmp(d->entries[j].what, d->entries[i].what) == 0)
            j++;
        struct diff_row *grown = realloc(d->rows, (size_t)(d->nrows + 1) * sizeof *grown);
        double *values = calloc((size_t)n * 2, sizeof *values);
        if (!grown || !values) {
            free(values);
            if (grown)
                d->rows = grown;
            return -1;
        }
        d->rows = grown;
        struct diff_row *row = &d->rows[d->nrows++];
        memset(row, 0, sizeof *row);
        const struct diff_entry *first = &d->entries[i];
        row->section = first->section;
        memcpy(row->what, first->what, sizeof row->what);
        memcpy(row->label, first->label, sizeof row->label);
        memcpy(row->unit, first->unit, sizeof row->unit);
        row->values = values;
        row->counts = values + n;
        int last_run = -1;
        for (int k = i; k < j; k++) { /* entries of one run add up (waits: over ranks) */
            const struct diff_entry *e = &d->entries[k];
            row->values[e->run] += e->value;
            row->counts[e->run] += e->count;
            if (e->run != last_run)
                *(e->run < d->na ? &row->in_a : &row->in_b) += 1;
            last_run = e->run;
        }
        judge(d, row);
        i = j;
    }
    qsort(d->rows, (size_t)d->nrows, sizeof *d->rows, by_change);
    return 0;
}

const char *diff_verdict_name(enum diff_verdict v)
{
    switch (v) {
    case DIFF_CHANGED:
        return "changed";
    case DIFF_NOISE:
        return "within noise";
    case DIFF_UNJUDGED:
        return "not judged";
    default:
        return "same";
    }
}

const char *diff_presence(const struct diff *d, const struct diff_row *row)
{
    (void)d;
    if (row->section == DIFF_OVERALL)
        return "";
    return row->in_a == 0 ? "appeared" : row->in_b == 0 ? "vanished" : "";
}

const struct diff_row *diff_find(const struct diff *d, int section, const char *what)
{
    for (int i = 0; i < d->nrows; i++)
        if (d->rows[i].section == section && strcmp(d->rows[i].what, what) == 0)
            return &d->rows[i];
    return NULL;
}

void diff_free(struct diff *d)
{
    for (int i = 0; i < d->nrows; i++)
        free(d->rows[i].values);
    free(d->rows);
    free(d->entries);
    free(d->runs);
}
