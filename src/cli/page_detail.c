/* SPDX-License-Identifier: BSD-3-Clause */
/* page_detail.c: the run page's detail sections (page.h), each only when the run has its
 * data: communicators and operations (a sortable table, MPI_Init and MPI_Finalize apart),
 * message sizes, call sites (profile); the matrix as a heatmap (monitor); the wait states
 * as a tree (analyze); the trace and its export for Perfetto. Every string the run
 * recorded is escaped.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
#include "comm_letters.h"
#include "page.h"

/* ---- the profile's detail ---- */

struct op_row {
    char comm[64], op[48], kind[8];
    int size;
    long long calls, volume;
    double time, longest;
};

static int by_time(const void *a, const void *b)
{
    double x = ((const struct op_row *)a)->time, y = ((const struct op_row *)b)->time;
    return (x < y) - (x > y);
}

static void op_table(struct page *p, struct op_row *rows, int n, double mpi, int limit)
{
    fputs("<div class=\"wide\"><table class=\"sortable\"><thead><tr><th class=\"t\">"
          "communicator</th><th>ranks</th><th class=\"t\">operation</th><th class=\"t\">kind"
          "</th><th>calls</th><th>time (s)</th><th>% of MPI</th><th>longest call (s)</th>"
          "<th>bytes sent</th></tr></thead><tbody>\n",
          p->f);
    for (int i = 0; i < n && i < limit; i++) {
        const struct op_row *r = &rows[i];
        fputs("<tr><td class=\"t\">", p->f);
        page_text(p, r->comm);
        fprintf(p->f, "</td><td data-v=\"%d\">%d</td><td class=\"t\">", r->size, r->size);
        page_text(p, r->op);
        fputs("</td><td class=\"t\">", p->f);
        page_text(p, r->kind);
        char volume[32];
        report_bytes(r->volume, volume, sizeof volume);
        fprintf(p->f,
                "</td><td data-v=\"%lld\">%lld</td><td data-v=\"%.9f\">%.6f</td>"
                "<td data-v=\"%.4f\">%.1f</td><td data-v=\"%.9f\">%.6f</td>"
                "<td data-v=\"%lld\" title=\"%lld bytes\">%s</td></tr>\n",
                r->calls, r->calls, r->time, r->time, mpi > 0 ? 100 * r->time / mpi : 0,
                mpi > 0 ? 100 * r->time / mpi : 0, r->longest, r->longest, r->volume, r->volume,
                volume);
    }
    fputs("</tbody></table></div>\n", p->f);
    if (n > limit)
        fprintf(p->f,
                "<p>The %d with the most time of %d; <code>mpilens report --csv</code> "
                "lists all.</p>\n",
                limit, n);
}

void page_communicators(struct page *p)
{
    const struct report_rows *cells = &p->cells;
    struct op_row *rows = calloc((size_t)cells->count, sizeof *rows);
    if (!rows)
        return;
    int n = 0;
    for (int i = 0; i < cells->count; i++) { /* the buckets of a (communicator, operation) */
        const struct rundb_profile_cell *c = &cells->rows[i];
        int j = 0;
        while (j < n && (strcmp(rows[j].comm, c->comm) || strcmp(rows[j].op, c->op)))
            j++;
        if (j == n) {
            snprintf(rows[n].comm, sizeof rows[n].comm, "%s", c->comm);
            snprintf(rows[n].op, sizeof rows[n].op, "%s", c->op);
            snprintf(rows[n].kind, sizeof rows[n].kind, "%s", c->kind);
            rows[n++].size = c->comm_size;
        }
        rows[j].calls += c->calls, rows[j].volume += c->volume, rows[j].time += c->total_time;
        rows[j].longest = c->longest > rows[j].longest ? c->longest : rows[j].longest;
    }
    qsort(rows, (size_t)n, sizeof *rows, by_time);
    /* Init and Finalize apart: the library's start-up, outside the run */
    struct op_row *startup = calloc((size_t)n + 1, sizeof *startup);
    int ns = 0, nr = 0;
    double mpi = 0;
    for (int i = 0; startup && i < n; i++) {
        if (rundb_startup_op(rows[i].op))
            startup[ns++] = rows[i];
        else {
            mpi += rows[i].time;
            rows[nr++] = rows[i];
        }
    }
    fputs("<section id=\"communicators\"><h2>Communicators and operations</h2>\n<p>Time "
          "summed over ranks; calls summed over ranks, a collective counted once. Click a "
          "column to sort.</p>\n",
          p->f);
    op_table(p, rows, nr, mpi, 200);
    char letters[64] = "", key[2048];
    for (int i = 0; i < nr; i++)
        lens_comm_letters_add(letters, rows[i].comm);
    if (letters[0]) { /* the key to the generated names (docs/database.md) */
        lens_comm_letters_key(letters, key, sizeof key);
        fputs("<p class=\"note\" id=\"names\">Names: LETTER ROOT.COUNTER, the creating call, "
              "the world rank of the communicator's rank 0 and that rank's count of "
              "communicators made before it: ",
              p->f);
        html_text(p->f, key);
        fputs(".</p>\n", p->f);
    }
    if (ns) {
        fputs("<h3>MPI_Init and MPI_Finalize (outside the run)</h3>\n", p->f);
        op_table(p, startup, ns, 0, 10);
    }
    fputs("</section>\n", p->f);
    free(rows);
    free(startup);
}

void page_sizes(struct page *p)
{
    const struct report_rows *cells = &p->cells;
    long long calls = 0; /* not in the navigation: the section decides itself */
    for (int i = 0; i < cells->count; i++)
        calls += cells->rows[i].volume > 0 ? cells->rows[i].calls : 0;
    if (calls == 0)
        return;
    fputs("<section id=\"sizes\"><h2>Message sizes</h2>\n<p>Calls per message-size bucket, "
          "all operations that move data.</p>\n",
          p->f);
    page_size_histogram(p->f, cells);
    fputs("</section>\n", p->f);
}

static void site_row(const struct rundb_callsite *c, void *ctx)
{
    struct page *p = ctx;
    double mpi = p->site_time;
    const char *file = c->file && *c->file ? c->file : "?";
    fprintf(p->f, "<tr><td data-v=\"%d\">%d</td><td class=\"t\" title=\"", c->id, c->id);
    page_text(p, file);
    fputs("\">", p->f);
    page_text(p, report_file_name(c->file));
    fprintf(p->f, ":%d</td><td class=\"t\">", c->line);
    page_text(p, c->function ? c->function : "?");
    fputs("</td><td class=\"t\">", p->f);
    page_text(p, c->operation);
    fprintf(p->f,
            "</td><td data-v=\"%lld\">%lld</td><td data-v=\"%.9f\">%.6f</td>"
            "<td data-v=\"%.4f\">%.1f</td><td data-v=\"%.9f\">%.6f</td><td data-v=\"%lld\">%lld"
            "</td></tr>\n",
            c->calls, c->calls, c->time, c->time, mpi > 0 ? 100 * c->time / mpi : 0,
            mpi > 0 ? 100 * c->time / mpi : 0, c->max_call, c->max_call, c->bytes, c->bytes);
}

void page_callsites(struct page *p)
{
    fputs("<section id=\"callsites\"><h2>Call sites</h2>\n<p>The 20 lines of the application "
          "with the most MPI time, summed over ranks (file:line from the debug information; "
          "? without -g).</p>\n<div class=\"wide\"><table class=\"sortable\"><thead><tr>"
          "<th>site</th><th class=\"t\">file:line</th><th class=\"t\">function</th>"
          "<th class=\"t\">operation</th><th>calls</th><th>time (s)</th><th>% of MPI</th>"
          "<th>longest call (s)</th><th>bytes</th></tr></thead><tbody>\n",
          p->f);
    rundb_callsites_top(p->db, -1, 20, RUNDB_PROGRAM_CALLS, site_row, p);
    fputs("</tbody></table></div>\n</section>\n", p->f);
}

/* ---- the monitor, analyze, the trace ---- */

void page_matrix_section(struct page *p)
{
    const struct page_matrix *m = &p->m;
    unsigned long long bytes = 0, messages = 0;
    for (size_t c = 0; c < (size_t)m->cols * m->cols; c++)
        bytes += m->bytes[c], messages += m->messages[c];
    fprintf(p->f,
            "<section id=\"matrix\"><h2>Communication matrix</h2>\n<p>Bytes each rank sent "
            "to each, %s (rows: senders; %llu messages, %llu bytes in all%s). Hover over a "
            "cell for its exact figures; <code>mpilens place</code> turns this matrix into a "
            "placement.</p>\n",
            strcmp(m->kind, "p2p") == 0 ? "point-to-point" : "all kinds", messages, bytes,
            m->block > 1 ? "; ranks in groups" : "");
    if (p->host_of)
        fprintf(p->f,
                "<p>Within hosts: <b>%llu</b> bytes; between hosts: <b>%llu</b> bytes "
                "(%d hosts; cells with traffic between hosts outlined in red).</p>\n",
                m->within, m->between_bytes, m->hosts);
    page_heatmap(p->f, m);
    fputs("</section>\n", p->f);
}

/* The largest (pattern, region, rank) waits, for the tree's leaves. */
struct wait_rows {
    struct {
        char pattern[32], region[64];
        int rank;
        double seconds;
    } at[300];
    int n;
};

static void keep_wait(const char *pattern, const char *region, int rank, double seconds, void *ctx)
{
    struct wait_rows *w = ctx;
    if (w->n >= 300)
        return;
    snprintf(w->at[w->n].pattern, sizeof w->at[0].pattern, "%s", pattern);
    snprintf(w->at[w->n].region, sizeof w->at[0].region, "%s", region ? region : "?");
    w->at[w->n].rank = rank;
    w->at[w->n++].seconds = seconds;
}

void page_waits(struct page *p)
{
    double total = rundb_waits_total(p->db, -1);
    struct wait_rows *top = calloc(1, sizeof *top);
    if (top)
        rundb_waits_top(p->db, -1, 300, keep_wait, top);
    fputs("<section id=\"waits\"><h2>Wait states</h2>\n<p>From <code>mpilens analyze</code>'s "
          "replay of the trace: the time ranks spent waiting, by pattern (Scalasca's "
          "hierarchy), with the calls and ranks that wait most.</p>\n<div class=\"tree\">\n",
          p->f);
    int open = 0; /* <details> open */
    for (int i = 0; i < report_wait_tree_size; i++) {
        const struct report_wait_metric *m = &report_wait_tree[i];
        int next = i + 1 < report_wait_tree_size ? report_wait_tree[i + 1].depth : 0;
        double v = m->patterns ? rundb_waits_sum(p->db, m->patterns, -1) : total;
        fprintf(p->f, "<details%s><summary>%s: <b>%.6f s</b> (%.1f %%)</summary>\n",
                v > 0 ? " open" : "", m->name, v, total > 0 ? 100 * v / total : 0);
        open++;
        for (int k = 0, shown = 0;
             top && m->patterns && !strchr(m->patterns, '|') && k < top->n && shown < 3; k++)
            if (strcmp(top->at[k].pattern, m->patterns) == 0) {
                fputs("<div class=\"leaf\">", p->f);
                page_text(p, top->at[k].region);
                fprintf(p->f, " on rank %d: %.6f s</div>\n", top->at[k].rank, top->at[k].seconds);
                shown++;
            }
        for (int close = m->depth; close >= next && open > 0; close--, open--)
            fputs("</details>\n", p->f);
    }
    while (open-- > 0)
        fputs("</details>\n", p->f);
    fputs("</div>\n</section>\n", p->f);
    free(top);
}

void page_trace_anchor(const char *run, char *out, size_t len)
{
    snprintf(out, len, "%s/trace/traces.otf2", run);
}

void page_trace(struct page *p)
{
    char anchor[4096], json[4096];
    page_trace_anchor(p->run, anchor, sizeof anchor);
    snprintf(json, sizeof json, "%s/trace.json", p->run);
    fputs("<section id=\"trace\"><h2>Trace</h2>\n<p>The OTF2 trace is in <code>", p->f);
    page_text(p, anchor);
    fputs("</code> (Vampir, Scalasca, <code>otf2-print</code>). For the timeline in Perfetto "
          "(<a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a>, or chrome://tracing): "
          "<code>mpilens export ",
          p->f);
    page_text(p, p->run);
    fputs(" --chrome ", p->f);
    page_text(p, json);
    fputs("</code>", p->f);
    if (access(json, R_OK) == 0) {
        /* the link works where the page lies beside it, as RUN/report.html does */
        char *copy = strdup(p->path), *dir = copy ? dirname(copy) : NULL, *real_dir = NULL,
             *real_run = realpath(p->run, NULL);
        real_dir = dir ? realpath(dir, NULL) : NULL;
        int beside = real_dir && real_run && strcmp(real_dir, real_run) == 0;
        fputs(": exported, <a href=\"", p->f);
        page_text(p, beside ? "trace.json" : json);
        fputs("\">trace.json</a>", p->f);
        free(copy), free(real_dir), free(real_run);
    }
    fputs(".</p>\n</section>\n", p->f);
}
