/* SPDX-License-Identifier: BSD-3-Clause */
/* diff_gate.c: `mpilens diff --fail-if COND`, a gate for continuous integration
 * (docs/diff.md, "In CI"). Grammar:
 *
 *   COND   := METRIC OP VALUE          (several: repeat --fail-if, or separate with commas)
 *   METRIC := wall | mpi_time | mpi_share | bytes | waits | row
 *   OP     := > | <
 *   VALUE  := [+|-]NUMBER UNIT
 *   UNIT   := %  (of side A's value; for row: of A's MPI time)
 *           | s | ms  (time metrics and row)   | B | KiB | MiB | GiB  (bytes)
 *           | pt  (mpi_share: percentage points)
 *
 * A condition holds when the metric's change B - A passes VALUE in the direction of OP and
 * the change is real (verdict "changed"); with one run on a side, where noise cannot be
 * judged, the difference alone decides, and the line says so. `row` holds when any profile
 * row (communicator, operation, bucket) does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

struct cond {
    char metric[16];
    char op;
    double value;
    char unit[8];
};

static const char grammar[] =
    "write METRIC>VALUE or METRIC<VALUE, METRIC one of wall, mpi_time, mpi_share, bytes, "
    "waits, row, VALUE a signed number with %, s, ms, B, KiB, MiB, GiB or pt (docs/diff.md)";

static int parse(const char *text, struct cond *c)
{
    memset(c, 0, sizeof *c);
    size_t m = strcspn(text, "<>");
    if (m == 0 || m >= sizeof c->metric || !text[m])
        return -1;
    memcpy(c->metric, text, m);
    c->op = text[m];
    char *end;
    c->value = strtod(text + m + 1, &end);
    if (end == text + m + 1 || strlen(end) >= sizeof c->unit)
        return -1;
    snprintf(c->unit, sizeof c->unit, "%s", end);
    static const char *const metrics[] = {"wall", "mpi_time", "mpi_share", "bytes", "waits", "row"};
    int known = 0;
    for (int i = 0; i < 6; i++)
        known |= strcmp(c->metric, metrics[i]) == 0;
    int time = strcmp(c->unit, "s") == 0 || strcmp(c->unit, "ms") == 0;
    int bytes = strcmp(c->unit, "B") == 0 || strcmp(c->unit, "KiB") == 0 ||
                strcmp(c->unit, "MiB") == 0 || strcmp(c->unit, "GiB") == 0;
    int fits = strcmp(c->unit, "%") == 0 ||
               (time && strcmp(c->metric, "bytes") != 0 && strcmp(c->metric, "mpi_share") != 0) ||
               (bytes && strcmp(c->metric, "bytes") == 0) ||
               (strcmp(c->unit, "pt") == 0 && strcmp(c->metric, "mpi_share") == 0);
    if (!known || !fits)
        return -1;
    if (strcmp(c->unit, "ms") == 0)
        c->value /= 1e3;
    for (int k = 0; k < 3 && bytes; k++)
        if (strcmp(c->unit, (const char *[]){"KiB", "MiB", "GiB"}[k]) == 0)
            c->value *= pow(1024, k + 1);
    return 0;
}

int diff_gate_parse(const char *conds)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", conds);
    for (char *save, *one = strtok_r(copy, ",", &save); one; one = strtok_r(NULL, ",", &save)) {
        struct cond c;
        if (parse(one, &c) != 0) {
            fprintf(stderr, "mpilens: diff: --fail-if '%s': not a condition; %s\n", one, grammar);
            return 2;
        }
    }
    return 0;
}

/* The change of ROW in C's terms (a percentage of its base, or the difference). */
static double change_of(const struct diff *d, const struct diff_row *row, const struct cond *c)
{
    if (strcmp(c->unit, "%") != 0)
        return row->delta;
    double base = strcmp(c->metric, "row") == 0 ? d->mpi_a : fabs(row->mean_a);
    return base > 0 ? 100 * row->delta / base
                    : (row->delta != 0 ? copysign(INFINITY, row->delta) : 0);
}

static int holds(const struct diff *d, const struct diff_row *row, const struct cond *c,
                 const char *text)
{
    if (!row || (row->verdict != DIFF_CHANGED && row->verdict != DIFF_UNJUDGED))
        return 0;
    double change = change_of(d, row, c);
    if (!(c->op == '>' ? change > c->value : change < c->value))
        return 0;
    char a[32], b[32], delta[32];
    diff_format(row->mean_a, row->unit, 0, a, sizeof a);
    diff_format(row->mean_b, row->unit, 0, b, sizeof b);
    diff_format(row->delta, row->unit, 1, delta, sizeof delta);
    fprintf(stderr, "mpilens: diff: --fail-if '%s' holds: %s%s%s%s%s from %s to %s (%s%s)\n", text,
            row->label[0], row->label[1][0] ? " " : "", row->label[1], row->label[2][0] ? " " : "",
            row->label[2], a, b, delta,
            row->verdict == DIFF_UNJUDGED ? ", noise not judged: one run on a side" : ", changed");
    return 1;
}

int diff_gate_check(const struct diff *d, char **conds, int nconds)
{
    int failed = 0;
    for (int i = 0; i < nconds; i++) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", conds[i]);
        for (char *save, *one = strtok_r(copy, ",", &save); one; one = strtok_r(NULL, ",", &save)) {
            struct cond c;
            if (parse(one, &c) != 0)
                continue; /* checked before the runs were read */
            if (strcmp(c.metric, "row") != 0) {
                failed |= holds(d, diff_find(d, DIFF_OVERALL, c.metric), &c, one);
                continue;
            }
            for (int r = 0; r < d->nrows; r++)
                if (d->rows[r].section == DIFF_PROFILE && holds(d, &d->rows[r], &c, one)) {
                    failed = 1;
                    break; /* the largest row that holds is named */
                }
        }
    }
    return failed;
}
