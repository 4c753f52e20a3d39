/* SPDX-License-Identifier: BSD-3-Clause */
/* diff.c: `mpilens diff A B` and `mpilens diff A1 A2 ... -- B1 B2 ...`: what changed
 * between two runs of one program, told apart from run-to-run noise (docs/diff.md). Reads
 * every run (diff_load.c), judges each matched row (diff_judge.c), prints text or CSV
 * (diff_text.c), writes the HTML page (diff_html.c) and applies --fail-if (diff_gate.c).
 * Status: 0, 1 when a --fail-if condition holds, 2 for bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"

static const char usage[] =
    "usage: mpilens diff A B [options]\n"
    "       mpilens diff A1 A2 A3 -- B1 B2 B3 [options]\n"
    "\n"
    "What changed between runs of one program: the overall time, MPI share and bytes, then\n"
    "the profile rows (communicator, operation, size bucket), call sites, matrix cells and\n"
    "wait states that changed most, largest time first. A run is a run directory or its\n"
    "mpilens.db. With repeated runs of each side, a row is \"changed\" only when the two\n"
    "sides' ranges lie apart (by more than the larger range, or by 5 standard errors)\n"
    "and the change is at least --min-share of the larger side's MPI time; \"noise\"\n"
    "otherwise. With one run a side, noise is not judged (\"?\"). Runs with different\n"
    "numbers of ranks are compared per communicator role (every communicator one creator\n"
    "made) and by totals.\n"
    "\n"
    "  --top N             rows shown per section (default 10)\n"
    "  --csv               every matched row as CSV, for scripts\n"
    "  --html FILE         also write an HTML page with charts (the largest changes, the\n"
    "                      matrix's B - A as a heatmap)\n"
    "  --min-share PCT     the smallest change that matters, in % of the larger side's\n"
    "                      MPI time (default 2)\n"
    "  --fail-if COND      exit 1 when COND holds for a real change, e.g. 'mpi_time>+5%',\n"
    "                      'wall>+0.5s', 'row>+10%' (any profile row, % of A's MPI time),\n"
    "                      'bytes<-1MiB', 'mpi_share>+3pt'; repeat it or separate with commas\n"
    "  --any-program       compare runs of different programs\n"
    "  -h, --help          this text\n"
    "\n"
    "Status: 0; 1 when a --fail-if condition holds; 2 when a run cannot be read.\n";

#define fail(...) cli_fail("diff", __VA_ARGS__)

struct options {
    int top, csv, any_program, nconds;
    const char *html;
    double min_share;
    char *conds[32];
    char *sides[2][64];
    int nside[2];
};

static int parse_args(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->top = 10;
    o->min_share = 0.02;
    int side = 0, split = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(a, "--") == 0) {
            if (split++)
                return fail("'--' given twice; write A1 A2 -- B1 B2");
            side = 1;
        } else if (strcmp(a, "--top") == 0 && v) {
            o->top = (int)strtol(v, &end, 10);
            if (*end || o->top < 1)
                return fail("--top '%s': give a number of rows from 1", v);
            i++;
        } else if (strcmp(a, "--min-share") == 0 && v) {
            o->min_share = strtod(v, &end) / 100;
            if (*end || end == v || o->min_share < 0 || o->min_share > 1)
                return fail("--min-share '%s': give a percentage from 0 to 100", v);
            i++;
        } else if (strcmp(a, "--html") == 0 && v) {
            o->html = argv[++i];
        } else if (strcmp(a, "--fail-if") == 0 && v) {
            if (o->nconds == 32)
                return fail("--fail-if: at most 32 of them; separate conditions with commas");
            if (diff_gate_parse(v) != 0)
                return 2;
            o->conds[o->nconds++] = argv[++i];
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if (strcmp(a, "--any-program") == 0) {
            o->any_program = 1;
        } else if (a[0] == '-' && a[1]) {
            return fail("unknown option '%s'%s; `mpilens diff --help` lists them", a,
                        cli_option_hint(a, usage));
        } else {
            if (o->nside[side] == 64)
                return fail("at most 64 runs a side");
            o->sides[side][o->nside[side]++] = argv[i];
        }
    }
    if (!split) { /* diff A B */
        if (o->nside[0] != 2)
            return fail("give two runs (mpilens diff A B) or repeated runs of each side "
                        "(mpilens diff A1 A2 -- B1 B2)");
        o->sides[1][0] = o->sides[0][1];
        o->nside[0] = o->nside[1] = 1;
    }
    if (!o->nside[0] || !o->nside[1])
        return fail("give at least one run on each side of '--'");
    return 0;
}

/* Opens every run; refuses runs of different programs unless told. 0 or 2. */
static int open_runs(struct diff *d, const struct options *o)
{
    for (int side = 0, run = 0; side < 2; side++)
        for (int i = 0; i < o->nside[side]; i++, run++)
            if (diff_open_run(d, run, o->sides[side][i]) != 0)
                return 2;
    d->same_ranks = 1;
    for (int i = 1; i < d->na + d->nb; i++) {
        const struct diff_run *a = &d->runs[0], *r = &d->runs[i];
        if (!o->any_program && a->program[0] && r->program[0] &&
            strcmp(a->program, r->program) != 0)
            return fail("%s ran '%s', %s ran '%s': not the same program (--any-program compares "
                        "them anyway)",
                        a->path, a->program, r->path, r->program);
        d->same_ranks &= a->processes == r->processes;
    }
    return 0;
}

/* Wait states are compared only when every run has them: a run not analyzed would show
 * each wait as vanished (or appeared), an improvement that never happened. */
static void waits_of_all_or_none(struct diff *d)
{
    int with = 0, n = d->na + d->nb;
    for (int i = 0; i < n; i++)
        with += d->runs[i].has_waits;
    if (with == 0 || with == n)
        return;
    for (int i = 0; i < n; i++) {
        if (!d->runs[i].has_waits) {
            char run[4200];
            if (cli_run_has_trace(d->runs[i].path, run, sizeof run))
                fprintf(stderr,
                        "mpilens: diff: wait states not compared: %s has a trace not yet "
                        "analyzed (mpilens analyze %s, then diff again)\n",
                        run, run);
            else
                fprintf(stderr,
                        "mpilens: diff: wait states not compared: %s was not traced (-m trace) "
                        "and has none\n",
                        run);
        }
    }
    for (int i = 0; i < n; i++)
        d->runs[i].has_waits = 0;
}

int cli_diff(int argc, char **argv)
{
    struct options o;
    int rc = cli_help(argc, argv, usage) ? -1 : parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc; /* -1: the help was asked for and shown */
    struct diff d = {.na = o.nside[0], .nb = o.nside[1], .min_share = o.min_share};
    d.runs = calloc((size_t)(d.na + d.nb), sizeof *d.runs);
    if (!d.runs)
        return fail("out of memory");
    rc = open_runs(&d, &o);
    if (!rc)
        waits_of_all_or_none(&d);
    for (int i = 0; !rc && i < d.na + d.nb; i++)
        rc = diff_read_run(&d, i);
    if (!rc && diff_judge(&d) != 0)
        rc = fail("out of memory while matching the runs' rows");
    if (!rc) {
        if (o.csv)
            diff_print_csv(&d, stdout);
        else
            diff_print_text(&d, o.top, stdout);
        if (o.html && diff_write_html(&d, o.top, o.html) != 0)
            rc = fail("--html %s: %s; give a file in a directory with room", o.html,
                      strerror(errno));
        else if (o.html)
            fprintf(stderr, "mpilens: diff: the page is in %s\n", o.html);
    }
    if (!rc && diff_gate_check(&d, o.conds, o.nconds))
        rc = 1;
    diff_free(&d);
    return rc;
}
