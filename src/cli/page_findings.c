/* SPDX-License-Identifier: BSD-3-Clause */
/* page_findings.c: the page's three largest findings (page.h), drawn from what the run
 * recorded: load imbalance and the start-up's share (profile), the communicator and
 * operation with the most MPI time and its call site (profile), the largest wait state and
 * the serialization (analyze), the bytes between hosts (monitor). Each candidate is costed
 * in seconds summed over ranks, so that they compare; the three costliest are shown, each
 * with its number, where it is, and a sentence on what to look at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "page.h"

struct finding {
    double cost; /* seconds over ranks */
    char title[64], number[96], where[256], advice[320];
};

struct findings {
    struct finding at[8];
    int n;
};

static struct finding *add(struct findings *all, double cost, const char *title)
{
    if (all->n >= 8 || !(cost > 0))
        return NULL;
    struct finding *f = &all->at[all->n++];
    memset(f, 0, sizeof *f);
    f->cost = cost;
    snprintf(f->title, sizeof f->title, "%s", title);
    return f;
}

static void load_imbalance(struct findings *all, const struct page_facts *facts)
{
    const struct pop_factors *e = facts->eff;
    if (!e || e->ranks < 2 || e->load_balance >= 0.95)
        return;
    double max = e->max_useful, mean = e->average_useful, balance = e->load_balance;
    int busiest = e->rank_useful;
    struct finding *f = add(all, e->ranks * (max - mean), "Load imbalance");
    if (!f)
        return;
    snprintf(f->number, sizeof f->number, "load balance %.2f", balance);
    snprintf(f->where, sizeof f->where,
             "rank %d computes %.3f s, the average rank %.3f s: the others wait for it in MPI",
             busiest, max, mean);
    snprintf(f->advice, sizeof f->advice,
             "Look at how the work is divided among the ranks: give rank %d less, or divide by "
             "measured cost rather than by count.",
             busiest);
}

/* MPI_Init and MPI_Finalize are the library's start-up and end, outside the run: never
 * ranked among the findings about the program's communication, said on a line of their own
 * after them when they take over a quarter of the job. */
static void startup_note(FILE *out, const struct page_facts *facts)
{
    double start = 0, rest = 0;
    for (int r = 0; facts->ranks && r < facts->n; r++)
        start += facts->ranks[r].startup, rest += facts->ranks[r].useful + facts->ranks[r].mpi;
    if (start <= 0.25 * (start + rest))
        return;
    fprintf(out,
            "<p class=\"note\">MPI_Init and MPI_Finalize took <span class=\"num\">%.0f %% of "
            "the job</span> (%.3f s per rank on average): the MPI library's start-up, outside the "
            "run and not ranked among the findings; measure a longer run before reading the "
            "shares.</p>\n",
            100 * start / (start + rest), facts->n ? start / facts->n : 0);
}

struct site_of {
    const char *op;
    char text[160];
};

static void first_site(const struct rundb_callsite *c, void *ctx)
{
    struct site_of *s = ctx;
    if (s->text[0] || !c->operation || strcmp(c->operation, s->op) != 0)
        return;
    snprintf(s->text, sizeof s->text, "; most at %s:%d%s%s", report_file_name(c->file), c->line,
             c->function ? " in " : "", c->function ? c->function : "");
}

static void costliest_operation(struct findings *all, sqlite3 *db)
{
    struct report_pair *pairs;
    double total;
    int n = report_mpi_pairs(db, &pairs, &total);
    struct finding *f =
        n > 0 && total > 0 ? add(all, pairs[0].time, "Where the MPI time goes") : NULL;
    if (f) {
        const struct report_pair *top = &pairs[0];
        struct site_of site = {top->op, ""};
        rundb_callsites_top(db, -1, 50, RUNDB_PROGRAM_CALLS, first_site, &site);
        snprintf(f->number, sizeof f->number, "%.0f %% of the MPI time", 100 * top->time / total);
        snprintf(f->where, sizeof f->where, "MPI_%s on %s (%d ranks): %.3f s over ranks%s", top->op,
                 top->comm, top->size, top->time, site.text);
        snprintf(f->advice, sizeof f->advice, "%s",
                 strcmp(top->op, "Barrier") == 0
                     ? "Barriers rarely carry data: check whether this one is needed, or "
                       "whether the time is the wait for a slower rank (load imbalance)."
                 : strcmp(top->kind, "coll") == 0
                     ? "Look at how often it runs and on how many ranks: fewer, larger "
                       "collectives cost less; `mpilens tune` suggests the algorithm."
                     : "Look at the message sizes and partners (matrix below): overlap the "
                       "transfers with computing (nonblocking calls), or send fewer, larger "
                       "messages.");
    }
    if (n >= 0)
        free(pairs);
}

/* The largest wait state: pattern and region, and the rank that waits most. */
struct top_wait {
    char pattern[64], region[128];
    int rank;
    double seconds;
};

static void keep_wait(const char *pattern, const char *region, int rank, double seconds, void *ctx)
{
    struct top_wait *w = ctx;
    if (w->seconds > 0)
        return;
    snprintf(w->pattern, sizeof w->pattern, "%s", pattern);
    snprintf(w->region, sizeof w->region, "%s", region ? region : "?");
    w->rank = rank, w->seconds = seconds;
}

static const char *wait_advice(const char *pattern)
{
    static const char *const advice[][2] = {
        {"Late Sender", "The receiver waits for a send posted late: look at what the sender "
                        "does before it sends, and post receives later or send earlier."},
        {"Late Receiver", "A synchronous or large send waits for its receive: post receives "
                          "earlier, or send nonblocking."},
        {"Wait at Barrier", "Ranks reach the barrier at different times: the wait is the load "
                            "imbalance before it."},
        {"Wait at N x N", "Ranks enter the collective at different times: the wait is the "
                          "imbalance of the work before it."},
        {"Late Broadcast", "The root enters the broadcast last: the others wait for its work "
                           "before the call."},
        {"Early Reduce", "The root waits for the slowest contributor of the reduction."},
    };
    for (size_t i = 0; i < sizeof advice / sizeof *advice; i++)
        if (strcmp(pattern, advice[i][0]) == 0)
            return advice[i][1];
    return "Look at the timeline (`mpilens export --chrome`) around the waiting calls.";
}

static void largest_wait(struct findings *all, sqlite3 *db)
{
    if (!rundb_table_has_rows(db, "waits"))
        return;
    struct top_wait w = {"", "", 0, 0};
    rundb_waits_top(db, -1, 1, keep_wait, &w);
    if (w.seconds <= 0)
        return;
    char list[80];
    snprintf(list, sizeof list, "%s", w.pattern);
    double pattern_total = rundb_waits_sum(db, list, -1);
    struct finding *f = add(all, pattern_total, w.pattern);
    if (!f)
        return;
    snprintf(f->number, sizeof f->number, "%.3f s over ranks", pattern_total);
    snprintf(f->where, sizeof f->where, "most in %s on rank %d (%.3f s)", w.region, w.rank,
             w.seconds);
    snprintf(f->advice, sizeof f->advice, "%s", wait_advice(w.pattern));
}

static void serialization(struct findings *all, const struct pop_factors *e)
{
    if (!e || e->serialization < 0 || e->serialization >= 0.8)
        return;
    struct finding *f =
        add(all, (1 - e->serialization) * e->run * e->ranks, "Ranks wait for each other in turn");
    if (!f)
        return;
    snprintf(f->number, sizeof f->number, "serialization efficiency %.2f", e->serialization);
    snprintf(f->where, sizeof f->where,
             "even on an ideal network the dependencies between ranks leave them idle");
    snprintf(f->advice, sizeof f->advice,
             "Look at the order of the sends and receives: a chain or a wavefront lets one "
             "rank work at a time; pipeline it, or reorder the work.");
}

static void between_hosts(struct findings *all, const struct page_facts *facts)
{
    unsigned long long sum = facts->within + facts->between;
    if (facts->hosts < 2 || sum == 0 || facts->between * 2 < sum)
        return;
    double mpi = 0; /* costed as that share of the MPI time */
    for (int r = 0; facts->ranks && r < facts->n; r++)
        mpi += facts->ranks[r].mpi;
    struct finding *f = add(all, mpi * facts->between / sum + 1e-9, "Traffic between hosts");
    if (!f)
        return;
    snprintf(f->number, sizeof f->number, "%.0f %% of the bytes", 100.0 * facts->between / sum);
    snprintf(f->where, sizeof f->where, "%llu bytes between %d hosts, %llu within them",
             facts->between, facts->hosts, facts->within);
    snprintf(f->advice, sizeof f->advice,
             "Place the ranks that talk most on one host: `mpilens place RUN` computes a "
             "placement from this matrix.");
}

static int by_cost(const void *a, const void *b)
{
    double x = ((const struct finding *)a)->cost, y = ((const struct finding *)b)->cost;
    return (x < y) - (x > y);
}

void page_findings(FILE *f, sqlite3 *db, const struct page_facts *facts)
{
    struct findings all = {.n = 0};
    load_imbalance(&all, facts);
    costliest_operation(&all, db);
    largest_wait(&all, db);
    serialization(&all, facts->eff);
    between_hosts(&all, facts);
    qsort(all.at, (size_t)all.n, sizeof *all.at, by_cost);
    if (all.n == 0) {
        fputs("<p>Nothing stands out: the run recorded no MPI time worth a finding.</p>\n", f);
        startup_note(f, facts);
        return;
    }
    fputs("<ol class=\"findings\">\n", f);
    for (int i = 0; i < all.n && i < 3; i++) {
        const struct finding *x = &all.at[i];
        fputs("<li><b>", f);
        html_text(f, x->title);
        fputs("</b>: <span class=\"num\">", f);
        html_text(f, x->number);
        fputs("</span>; ", f);
        html_text(f, x->where);
        fputs(".<br><span class=\"advice\">", f);
        html_text(f, x->advice);
        fprintf(f, "</span> <span class=\"cost\">(%.3f s over ranks)</span></li>\n", x->cost);
    }
    fputs("</ol>\n", f);
    startup_note(f, facts);
}
