/* SPDX-License-Identifier: BSD-3-Clause */
/* diff_text.c: `mpilens diff` for a terminal (the overall change, then per section the rows
 * that changed most, in columns that fit 80 characters) and as CSV (every matched row,
 * for scripts).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diff.h"

void diff_format(double value, const char *unit, int sign, char *out, size_t len)
{
    const char *plus = sign && value > 0 ? "+" : "";
    double a = fabs(value);
    if (strcmp(unit, "s") == 0) {
        if (a == 0 || a >= 0.1)
            snprintf(out, len, "%s%.3f s", plus, value);
        else if (a >= 1e-4)
            snprintf(out, len, "%s%.2f ms", plus, value * 1e3);
        else
            snprintf(out, len, "%s%.1f us", plus, value * 1e6);
    } else if (strcmp(unit, "B") == 0) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (a >= 1024 && u < 4)
            a /= 1024, value /= 1024, u++;
        snprintf(out, len, u ? "%s%.1f %s" : "%s%.0f %s", plus, value, units[u]);
    } else if (strcmp(unit, "%") == 0) {
        snprintf(out, len, "%s%.1f %s", plus, value, sign ? "pt" : "%");
    } else {
        snprintf(out, len, "%s%g", plus, value);
    }
}

/* The verdict column: what a row is, in eight characters. */
static const char *short_verdict(const struct diff *d, const struct diff_row *row)
{
    const char *presence = diff_presence(d, row);
    if (*presence && row->verdict != DIFF_NOISE)
        return presence;
    return row->verdict == DIFF_CHANGED ? "changed"
           : row->verdict == DIFF_NOISE ? "noise"
           : row->verdict == DIFF_SAME  ? "same"
                                        : "?";
}

static void print_runs(const struct diff *d, FILE *out)
{
    const struct diff_run *a = &d->runs[0], *b = &d->runs[d->na];
    fprintf(out,
            "mpilens diff of %s\n  A: %s%s (%d run%s, %d ranks)\n  B: %s%s (%d run%s, %d ranks)\n",
            a->program, a->path, d->na > 1 ? " ..." : "", d->na, d->na > 1 ? "s" : "", a->processes,
            b->path, d->nb > 1 ? " ..." : "", d->nb, d->nb > 1 ? "s" : "", b->processes);
    if (d->na < 2 || d->nb < 2)
        fprintf(out, "noise: not judged with one run on a side (\"?\"); give repeated runs:\n"
                     "  mpilens diff A1 A2 A3 -- B1 B2 B3\n");
    else
        fprintf(out,
                "noise: from %d + %d runs; \"changed\": the sides' ranges apart (by more than\n"
                "  the larger range, or by 5 standard errors), and at least %g %% of the larger\n"
                "  side's MPI time\n",
                d->na, d->nb, 100 * d->min_share);
    if (!d->same_ranks)
        fprintf(out,
                "ranks differ (%d and %d): communicators compared by role (every one a "
                "creator made, summed), totals compared, the matrix not\n",
                a->processes, b->processes);
    for (int i = 0; i < d->na + d->nb; i++)
        if (d->runs[i].incomplete[0])
            fprintf(out, "incomplete run: %s: %s\n", d->runs[i].path, d->runs[i].incomplete);
}

static const char *const titles[DIFF_SECTIONS] = {
    "Overall",
    "Profile: the rows that changed most (time summed over ranks; Init/Finalize left out)",
    "Call sites: the lines whose MPI time changed most",
    "Matrix: the cells that changed most (bytes)",
    "Wait states: the patterns that grew or shrank (time summed over ranks)",
};

static void header(int section, FILE *out)
{
    fprintf(out, "\n%s\n", titles[section]);
    switch (section) {
    case DIFF_OVERALL:
        fprintf(out, "  %-39s %9s %9s %9s  %s\n", "", "A", "B", "B - A", "verdict");
        break;
    case DIFF_PROFILE:
        fprintf(out, "  %-21s %-10s %-7s %9s %9s %9s  %s\n", "communicator", "operation", "bucket",
                "A", "B", "B - A", "verdict");
        break;
    case DIFF_SITES:
        fprintf(out, "  %-27s %-11s %9s %9s %9s  %s\n", "call site", "operation", "A", "B", "B - A",
                "verdict");
        break;
    case DIFF_MATRIX:
        fprintf(out, "  %-6s %-32s %9s %9s %9s  %s\n", "kind", "source -> destination", "A", "B",
                "B - A", "verdict");
        break;
    default:
        fprintf(out, "  %-24s %-14s %9s %9s %9s  %s\n", "pattern", "region", "A", "B", "B - A",
                "verdict");
    }
}

static void print_row(const struct diff *d, const struct diff_row *r, FILE *out)
{
    char a[32], b[32], delta[32];
    diff_format(r->mean_a, r->unit, 0, a, sizeof a);
    diff_format(r->mean_b, r->unit, 0, b, sizeof b);
    diff_format(r->delta, r->unit, 1, delta, sizeof delta);
    const char *v = short_verdict(d, r);
    switch (r->section) {
    case DIFF_OVERALL:
        fprintf(out, "  %-39s %9s %9s %9s  %s\n", r->label[0], a, b, delta, v);
        break;
    case DIFF_PROFILE:
        fprintf(out, "  %-21.21s %-10.10s %-7.7s %9s %9s %9s  %s\n", r->label[0], r->label[1],
                r->label[2], a, b, delta, v);
        break;
    case DIFF_SITES:
        fprintf(out, "  %-27.27s %-11.11s %9s %9s %9s  %s\n", r->label[0], r->label[1], a, b, delta,
                v);
        break;
    case DIFF_MATRIX:
        fprintf(out, "  %-6s %-32.32s %9s %9s %9s  %s\n", r->label[0], r->label[1], a, b, delta, v);
        break;
    default:
        fprintf(out, "  %-24.24s %-14.14s %9s %9s %9s  %s\n", r->label[0], r->label[1], a, b, delta,
                v);
    }
}

void diff_print_text(const struct diff *d, int top, FILE *out)
{
    print_runs(d, out);
    int changed = 0, noise = 0, appeared = 0, vanished = 0;
    for (int s = 0; s < DIFF_SECTIONS; s++) {
        int shown = 0, any = 0;
        for (int i = 0; i < d->nrows; i++) {
            const struct diff_row *r = &d->rows[i];
            if (r->section != s)
                continue;
            any = 1;
            if (s != DIFF_OVERALL) {
                changed += r->verdict == DIFF_CHANGED;
                noise += r->verdict == DIFF_NOISE;
                appeared += r->in_a == 0;
                vanished += r->in_b == 0;
            }
            if (s != DIFF_OVERALL && (r->verdict == DIFF_SAME || shown >= top))
                continue;
            if (!shown++)
                header(s, out);
            print_row(d, r, out);
        }
        if (any && !shown)
            fprintf(out, "\n%s\n  no change\n", titles[s]);
    }
    fprintf(out, "\n%d row%s changed, %d within noise; %d appeared, %d vanished\n", changed,
            changed == 1 ? "" : "s", noise, appeared, vanished);
}

void diff_print_csv(const struct diff *d, FILE *out)
{
    static const char *const names[DIFF_SECTIONS] = {"overall", "profile", "callsite", "matrix",
                                                     "waits"};
    fprintf(out, "section,what,label1,label2,label3,unit,a,b,diff,verdict,presence,spread,a_runs,"
                 "b_runs\n");
    for (int i = 0; i < d->nrows; i++) {
        const struct diff_row *r = &d->rows[i];
        fprintf(out, "%s,", names[r->section]);
        for (int k = 0; k < 4; k++) {
            lens_csv_field(out, k ? r->label[k - 1] : r->what);
            fputc(',', out);
        }
        fprintf(out, "%s,%.9g,%.9g,%.9g,%s,%s,%.9g,%d,%d\n", r->unit, r->mean_a, r->mean_b,
                r->delta, diff_verdict_name(r->verdict), diff_presence(d, r), r->spread, r->in_a,
                r->in_b);
    }
}
