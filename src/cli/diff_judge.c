/* diff_judge.c: the runs' entries grouped into rows (one per thing matched across runs)
 * and each row judged (docs/diff.md, "When is a change real"):
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
    int n = d->na + d->nb;
    double lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
    double sum_a = 0, sum_b = 0, sum_ca = 0, sum_cb = 0;
    for (int i = 0; i < n; i++) {
        double v = row->values[i];
        if (i < d->na) {
            sum_a += v, sum_ca += row->counts[i];
            lo_a = v < lo_a ? v : lo_a, hi_a = v > hi_a ? v : hi_a;
        } else {
            sum_b += v, sum_cb += row->counts[i];
            lo_b = v < lo_b ? v : lo_b, hi_b = v > hi_b ? v : hi_b;
        }
    }
    row->mean_a = sum_a / d->na;
    row->mean_b = sum_b / d->nb;
    row->count_a = sum_ca / d->na;
    row->count_b = sum_cb / d->nb;
    row->delta = row->mean_b - row->mean_a;
    row->spread = fmax(hi_a - lo_a, hi_b - lo_b);
    row->gap = fmax(lo_b - hi_a, lo_a - hi_b);
    if (lo_a == hi_b && hi_a == lo_b) {
        row->verdict = DIFF_SAME;
        return;
    }
    if (d->na < 2 || d->nb < 2) {
        row->verdict = DIFF_UNJUDGED;
        return;
    }
    double base = row->section == DIFF_OVERALL  ? fmax(fabs(row->mean_a), fabs(row->mean_b))
                  : row->section == DIFF_MATRIX ? fmax(d->bytes_a, d->bytes_b)
                                                : fmax(d->mpi_a, d->mpi_b);
    int material = fabs(row->delta) >= d->min_share * base;
    double va = 0, vb = 0;
    for (int i = 0; i < n; i++) {
        double m = i < d->na ? row->mean_a : row->mean_b, dv = row->values[i] - m;
        *(i < d->na ? &va : &vb) += dv * dv;
    }
    double se = sqrt(va / (d->na - 1) / d->na + vb / (d->nb - 1) / d->nb);
    int apart = row->gap > 0 && (row->gap > row->spread || fabs(row->delta) >= 5 * se);
    row->verdict = apart && material ? DIFF_CHANGED : DIFF_NOISE;
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
