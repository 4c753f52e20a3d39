/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_table.c: the scaling table printed (pop_scaling.h): text that fits 80 columns, one
 * block of at most 7 rank counts after another, the efficiencies marked by POP's colour
 * bands in words (>= 0.8 good, 0.6 to 0.8 fair "~", below 0.6 poor "!") and the factor
 * that falls below 0.8 first named; CSV rows `metric,ranks,value`; one JSON object.
 */
#include "pop_scaling.h"
#include "text_fields.h"

#include <stdio.h>
#include <unistd.h>

#define LABEL 24
#define CELL 7
#define PER_BLOCK 7

static int has_metric(const struct pop_table *t, enum pop_metric m)
{
    for (int i = 0; i < t->n; i++)
        if (t->value[m][i] >= 0)
            return 1;
    return 0;
}

static int is_site(const struct pop_table *t)
{
    return t->n > 0 && t->points[0].jobs > 0;
}

/* Why the table has no instruction or IPC rows (the machine, or mpilens), in two halves:
 * the text breaks the line between them, JSON joins them with a space. */
static const char *const *counters_why(void)
{
    static const char *const mpilens[] = {"the profile reads", "no hardware counters yet"};
    static const char *const machine[] = {"this machine gives a",
                                          "process no hardware counters (no CPU PMU for "
                                          "perf_event_open)"};
    return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ? mpilens : machine;
}

static void cell(FILE *out, enum pop_metric m, double v)
{
    if (v < 0) {
        fprintf(out, "%*s", CELL, "-");
        return;
    }
    if (m == POP_SPEEDUP) {
        fprintf(out, "%*.2f ", CELL - 1, v);
        return;
    }
    fprintf(out, "%*.3f%c", CELL - 1, v, v >= 0.8 ? ' ' : v >= 0.6 ? '~' : '!');
}

static void row(FILE *out, const char *title, int from, int to, enum pop_metric m,
                const double *values)
{
    fprintf(out, "%-*s", LABEL, title);
    for (int i = from; i < to; i++)
        cell(out, m, values[i]);
    fputc('\n', out);
}

/* The site's rows under a block: the jobs of each column and their parallel efficiency's
 * lowest and highest. */
static void spread_rows(FILE *out, const struct pop_table *t, int from, int to)
{
    fprintf(out, "%-*s", LABEL, "jobs (median of each)");
    for (int i = from; i < to; i++)
        fprintf(out, "%*d ", CELL - 1, t->points[i].jobs);
    fprintf(out, "\n%-*s", LABEL, " parallel eff. lowest");
    for (int i = from; i < to; i++)
        cell(out, POP_PARALLEL, t->points[i].parallel_low);
    fprintf(out, "\n%-*s", LABEL, " parallel eff. highest");
    for (int i = from; i < to; i++)
        cell(out, POP_PARALLEL, t->points[i].parallel_high);
    fputc('\n', out);
}

/* The factors that fall below 0.8 first, reading the columns from the fewest ranks. */
static void first_fall(const struct pop_table *t, FILE *out)
{
    static const enum pop_metric factors[] = {POP_LOAD_BALANCE, POP_COMMUNICATION,
                                              POP_SERIALIZATION, POP_TRANSFER, POP_COMPUTATION};
    static const char *const words[] = {"load balance", "communication efficiency", "serialization",
                                        "transfer", "computation scalability"};
    for (int i = 0; i < t->n; i++) {
        int said = 0;
        for (size_t f = 0; f < sizeof factors / sizeof *factors; f++) {
            double v = t->value[factors[f]][i];
            if (v < 0 || v >= 0.8)
                continue;
            if (!said)
                fprintf(out, "Read top to bottom: below 0.8 first, at %d ranks:\n ",
                        t->points[i].ranks);
            fprintf(out, "%s %s %.3f", said++ ? "," : "", words[f], v);
        }
        if (said) {
            fputc('\n', out);
            return;
        }
    }
    fprintf(out, "Read top to bottom: every factor stays at 0.8 or above up to %d ranks\n",
            t->points[t->n - 1].ranks);
}

void pop_print_text(const struct pop_table *t, FILE *out)
{
    const struct pop_point *r = &t->points[t->ref];
    fprintf(out, "Scaling of %s\n%s, against %d rank%s\n", t->program[0] ? t->program : "the runs",
            t->weak ? "Weak (useful time per rank compared)" : "Strong (the same total work)",
            r->ranks, r->ranks == 1 ? "" : "s");
    int ser = has_metric(t, POP_SERIALIZATION), site = is_site(t);
    for (int from = 0; from < t->n; from += PER_BLOCK) {
        int to = from + PER_BLOCK < t->n ? from + PER_BLOCK : t->n;
        fprintf(out, "\n%-*s", LABEL, "ranks");
        for (int i = from; i < to; i++)
            fprintf(out, "%*d ", CELL - 1, t->points[i].ranks);
        fputc('\n', out);
        for (int m = 0; m < POP_METRICS; m++) {
            if ((m == POP_SERIALIZATION || m == POP_TRANSFER) && !ser)
                continue;
            row(out, pop_metric_title(m), from, to, m, t->value[m]);
        }
        if (site)
            spread_rows(out, t, from, to);
    }
    fprintf(out, "\n0.8 and above: good (POP's green); ~ 0.6 to 0.8: fair; ! below 0.6: poor.\n");
    first_fall(t, out);
    if (!ser && site)
        fprintf(out, "Serialization and transfer: not in the records (a traced run has them).\n");
    else if (!ser)
        fprintf(out, "Serialization and transfer: trace the runs (-m profile,trace), analyze "
                     "them.\n");
    const char *const *why = counters_why();
    fprintf(out, "Instructions and IPC scalability: not recorded; %s\n%s.\n", why[0], why[1]);
}

void pop_print_csv(const struct pop_table *t, FILE *out)
{
    fprintf(out, "metric,ranks,value\n");
    for (int m = 0; m < POP_METRICS; m++)
        for (int i = 0; i < t->n; i++)
            if (t->value[m][i] >= 0)
                fprintf(out, "%s,%d,%.6f\n", pop_metric_name(m), t->points[i].ranks,
                        t->value[m][i]);
    if (is_site(t))
        for (int i = 0; i < t->n; i++)
            fprintf(out,
                    "jobs,%d,%d\nparallel_efficiency_lowest,%d,%.6f\n"
                    "parallel_efficiency_highest,%d,%.6f\n",
                    t->points[i].ranks, t->points[i].jobs, t->points[i].ranks,
                    t->points[i].parallel_low, t->points[i].ranks, t->points[i].parallel_high);
}

void pop_print_json(const struct pop_table *t, FILE *out)
{
    fputs("{\"program\": ", out);
    lens_json_string(out, t->program);
    fprintf(out, ", \"scaling\": \"%s\", \"reference_ranks\": %d, \"columns\": [",
            t->weak ? "weak" : "strong", t->points[t->ref].ranks);
    for (int i = 0; i < t->n; i++) {
        const struct pop_point *p = &t->points[i];
        fprintf(out, "%s\n  {\"ranks\": %d, \"source\": ", i ? "," : "", p->ranks);
        lens_json_string(out, p->source);
        if (p->page[0]) {
            fputs(", \"page\": ", out);
            lens_json_string(out, p->page);
        }
        fprintf(out, ", \"run_seconds\": %.6f, \"useful_seconds\": %.6f", p->run, p->sum_useful);
        for (int m = 0; m < POP_METRICS; m++) {
            fprintf(out, ", \"%s\": ", pop_metric_name(m));
            if (t->value[m][i] >= 0)
                fprintf(out, "%.6f", t->value[m][i]);
            else
                fputs("null", out);
        }
        if (p->jobs)
            fprintf(out,
                    ", \"jobs\": %d, \"parallel_efficiency_lowest\": %.6f, "
                    "\"parallel_efficiency_highest\": %.6f",
                    p->jobs, p->parallel_low, p->parallel_high);
        fputc('}', out);
    }
    fputs("],\n \"hardware_counters\": ", out);
    const char *const *why = counters_why();
    char note[256];
    snprintf(note, sizeof note, "Instructions and IPC scalability: not recorded; %s %s", why[0],
             why[1]);
    lens_json_string(out, note);
    fputs("}\n", out);
}
