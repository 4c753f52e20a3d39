/* page.c: the run's page (page.h, docs/page.md): one self-contained HTML file (inline CSS,
 * SVG and a little JavaScript that sorts tables; nothing fetched), summary first:
 *   summary      the run's figures and one bar of where its time went;
 *   findings     the three largest (page_findings.c);
 *   efficiency   the POP metrics with their meanings, per phase when analyzed;
 *   ranks        where each rank's time went (the load-imbalance picture);
 * then the detail, each section only when the run has its data:
 *   communicators  per communicator and operation (sortable; Init and Finalize apart),
 *   sizes, callsites, matrix (heatmap; within and between hosts), waits (a tree), trace.
 * Every string the run recorded is escaped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
#include "page.h"
#include "rundb.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1em auto;max-width:1200px;padding:0 1em;color:#222}"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
    ".sub{color:#555;overflow-wrap:anywhere}nav a{margin-right:1em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
    "padding:2px 8px;text-align:right}th{background:#f2f2f2}td.t,th.t{text-align:left;"
    "overflow-wrap:anywhere}table.sortable th{cursor:pointer}.wide{overflow-x:auto}"
    ".figures td{border:none;padding:1px 12px 1px 0}.figures td:first-child{color:#555;"
    "text-align:left}.meter{display:inline-block;height:10px;background:#3b7dd8}"
    ".findings li{margin:.5em 0}.num{font-weight:bold}.advice{color:#333}.cost{color:#777;"
    "font-size:90%}.tree details{margin-left:1.2em}.tree summary{cursor:pointer}"
    ".tree .leaf{margin-left:2.4em;color:#555;font-size:90%}"
    "@media print{nav{display:none}h2{page-break-after:avoid}svg{page-break-inside:avoid}}";

/* Sorts a table.sortable by the column whose header is clicked: by data-v when the cell has
 * one (numbers), else by text; again reverses. */
static const char script[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.title='click to sort';th.addEventListener('click',function(){"
    "var body=th.closest('table').tBodies[0],i=th.cellIndex,up=th.dataset.dir!=='up';"
    "th.dataset.dir=up?'up':'down';var rows=Array.prototype.slice.call(body.rows);"
    "rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],d=x.dataset.v!==undefined?"
    "parseFloat(x.dataset.v)-parseFloat(y.dataset.v):x.textContent.localeCompare(y.textContent);"
    "return up?d:-d});rows.forEach(function(r){body.appendChild(r)})})});";

struct page {
    FILE *f;
    sqlite3 *db;
    const char *run, *path;
    struct page_rank_time *ranks;
    int n;
    struct page_matrix m; /* the monitor's matrix, grouped; m.n = 0 without one */
    int *host_of;
    double site_time; /* MPI time recorded at call sites, summed over ranks */
};

static void text(struct page *p, const char *s)
{
    html_text(p->f, s ? s : "");
}

/* ---- what the page reads before it writes ---- */

static void add_rank_time(int rank, double exec, double mpi_all, double start, void *ctx)
{
    struct page *p = ctx;
    if (rank < 0 || rank >= p->n)
        return;
    double useful = exec - mpi_all, mpi = mpi_all - start;
    p->ranks[rank] = (struct page_rank_time){useful > 0 ? useful : 0, mpi > 0 ? mpi : 0, start};
}

static int read_ranks(struct page *p)
{
    if (!rundb_profile_has_rows(p->db))
        return 0;
    char value[64];
    p->n = rundb_metadata_get(p->db, "Processes", value, sizeof value) ? atoi(value) : 0;
    if (p->n <= 0 || p->n > 1 << 24)
        return p->n = 0;
    p->ranks = calloc((size_t)p->n, sizeof *p->ranks);
    if (!p->ranks)
        return -1;
    return rundb_rank_times(p->db, -1, add_rank_time, p);
}

/* One cell of the monitor's matrix into its group's (and within or between hosts). */
static void add_cell(int src, int dst, long long messages, long long bytes, void *ctx)
{
    struct page *p = ctx;
    struct page_matrix *m = &p->m;
    if (src < 0 || dst < 0 || src >= m->n || dst >= m->n)
        return;
    size_t c = (size_t)(src / m->block) * m->cols + dst / m->block;
    m->bytes[c] += (unsigned long long)bytes;
    m->messages[c] += (unsigned long long)messages;
    if (!p->host_of)
        return;
    int crosses = p->host_of[src] != p->host_of[dst] || p->host_of[src] < 0;
    if (crosses)
        m->between_bytes += (unsigned long long)bytes;
    else
        m->within += (unsigned long long)bytes;
    m->between[c] |= crosses && messages > 0;
}

/* The matrix in at most 64 x 64 groups of ranks, read cell by cell (never n x n in
 * memory): point-to-point, or every kind when the run had no point-to-point traffic. */
static void read_matrix(struct page *p)
{
    struct page_matrix *m = &p->m;
    int n = rundb_matrix_has_cells(p->db) ? rundb_matrix_ranks(p->db) : 0;
    if (n <= 0)
        return;
    char hosts[1024], err[512];
    m->hosts = rundb_host_summary(p->db, hosts, sizeof hosts);
    p->host_of = m->hosts > 1 ? malloc((size_t)n * sizeof *p->host_of) : NULL;
    if (p->host_of && rundb_rank_hosts(p->db, p->host_of, n) != 0) {
        free(p->host_of);
        p->host_of = NULL;
    }
    m->n = n;
    m->block = (n + PAGE_MAX_ROWS - 1) / PAGE_MAX_ROWS;
    m->cols = (n + m->block - 1) / m->block;
    size_t cells = (size_t)m->cols * m->cols;
    m->bytes = calloc(2 * cells, sizeof *m->bytes);
    m->between = calloc(cells, 1);
    static const char *const kinds[] = {"p2p", "all"};
    for (int k = 0; k < 2 && m->bytes && m->between; k++) {
        memset(m->bytes, 0, 2 * cells * sizeof *m->bytes);
        memset(m->between, 0, cells);
        m->messages = m->bytes + cells, m->within = m->between_bytes = 0, m->kind = kinds[k];
        if (rundb_matrix_cells(p->db, kinds[k], NULL, add_cell, p, err, sizeof err) != 0)
            break;
        for (size_t c = 0; c < cells; c++)
            if (m->messages[c])
                return;
    }
    free(m->bytes), free(m->between);
    m->bytes = NULL, m->between = NULL, m->n = 0; /* no traffic, or it cannot be read */
}

/* ---- summary, efficiency, ranks ---- */

static void figure(struct page *p, const char *name, const char *value)
{
    fprintf(p->f, "<tr><td>%s</td><td class=\"t\">%s</td></tr>\n", name, value);
}

static void summary(struct page *p)
{
    char value[8192];
    fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"figures\">\n", p->f);
    static const char *const keys[][2] = {{"Run command", "command"},
                                          {"Processes", "ranks"},
                                          {"MPI Library", "MPI library"},
                                          {"Profile date", "date"},
                                          {"Slurm job", "Slurm job"}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (rundb_metadata_get(p->db, keys[i][0], value, sizeof value)) {
            fprintf(p->f, "<tr><td>%s</td><td class=\"t\">", keys[i][1]);
            text(p, value);
            fputs("</td></tr>\n", p->f);
        }
    if (rundb_host_summary(p->db, value, sizeof value) > 1) {
        fputs("<tr><td>hosts</td><td class=\"t\">", p->f);
        text(p, value);
        fputs("</td></tr>\n", p->f);
    }
    struct report_efficiency e;
    if (p->n && report_efficiency(p->db, &e) == 0) {
        double mpi = 0, run = 0, start = 0;
        for (int r = 0; r < p->n; r++)
            mpi += p->ranks[r].mpi, run += p->ranks[r].useful + p->ranks[r].mpi,
                start += p->ranks[r].startup;
        snprintf(value, sizeof value, "%.6f s, the longest rank's, from MPI_Init to MPI_Finalize",
                 e.run);
        figure(p, "run", value);
        snprintf(value, sizeof value, "%.1f %% of the ranks' time in MPI calls (%.6f s summed)",
                 run > 0 ? 100 * mpi / run : 0, mpi);
        figure(p, "MPI / run", value);
        snprintf(value, sizeof value, "%.6f s per rank on average, outside the run", start / p->n);
        figure(p, "Init+Finalize", value);
        snprintf(value, sizeof value, "%.3f (load balance x communication efficiency)", e.parallel);
        figure(p, "parallel efficiency", value);
    }
    fputs("</table>\n", p->f);
    if (p->n) {
        fputs("<h3>Where the time went</h3>\n", p->f);
        page_run_bar(p->f, p->ranks, p->n);
    }
    fputs("</section>\n", p->f);
}

static void metric_row(FILE *f, const char *name, double v, const char *meaning)
{
    fprintf(f,
            "<tr><td class=\"t\">%s</td><td data-v=\"%.6f\">%.3f</td><td class=\"t\"><span "
            "class=\"meter\" style=\"width:%.0fpx%s\"></span></td><td class=\"t\">%s</td></tr>\n",
            name, v, v,
            120 * (v < 0   ? 0
                   : v > 1 ? 1
                           : v),
            v < 0.8 ? ";background:#e0803a" : "", meaning);
}

static void efficiency(struct page *p)
{
    struct report_efficiency e;
    if (!p->n || report_efficiency(p->db, &e) != 0)
        return;
    fputs("<section id=\"efficiency\"><h2>Efficiency</h2>\n<p>The POP metrics, each between 0 "
          "and 1 (below 0.8 in orange; docs/efficiency.md). Useful time: a rank's time "
          "between MPI_Init and MPI_Finalize outside MPI calls.</p>\n<table>\n<thead><tr>"
          "<th class=\"t\">metric</th><th>value</th><th class=\"t\">scale</th>"
          "<th class=\"t\">meaning</th></tr></thead><tbody>\n",
          p->f);
    char meaning[256];
    metric_row(p->f, "parallel efficiency", e.parallel,
               "the share of the run, summed over ranks, spent computing: load balance x "
               "communication efficiency");
    snprintf(meaning, sizeof meaning,
             "average useful time / the largest (rank %d, %.6f s): 1 when every rank computes "
             "as long",
             e.rank_useful, e.max_useful);
    metric_row(p->f, "load balance", e.load_balance, meaning);
    snprintf(meaning, sizeof meaning,
             "the largest useful time / the run (%.6f s): what MPI costs the busiest rank", e.run);
    metric_row(p->f, "communication efficiency", e.communication, meaning);
    if (e.serialization >= 0 && e.transfer >= 0) {
        metric_row(p->f, "serialization efficiency", e.serialization,
                   "the largest computing / the run on an ideal network: waits that the "
                   "dependencies impose");
        metric_row(p->f, "transfer efficiency", e.transfer,
                   "the run on an ideal network / the real one: time lost moving data");
    }
    fputs("</tbody></table>\n", p->f);
    if (e.serialization < 0)
        fputs("<p>Serialization and transfer efficiency: trace the run (<code>-m "
              "profile,trace</code>) and run <code>mpilens analyze</code>.</p>\n",
              p->f);
    struct report_phase *phases;
    int n = report_phase_efficiencies(p->db, &phases);
    if (n > 0) {
        fputs("<h3>Per phase (MPI_Pcontrol regions)</h3>\n<table class=\"sortable\"><thead><tr>"
              "<th class=\"t\">phase</th><th>parallel</th><th>load balance</th>"
              "<th>communication</th><th>length (s)</th></tr></thead><tbody>\n",
              p->f);
        for (int i = 0; i < n; i++) {
            fputs("<tr><td class=\"t\">", p->f);
            text(p, phases[i].name);
            fprintf(p->f,
                    "</td><td data-v=\"%.6f\">%.3f</td><td data-v=\"%.6f\">%.3f</td>"
                    "<td data-v=\"%.6f\">%.3f</td><td data-v=\"%.6f\">%.6f</td></tr>\n",
                    phases[i].parallel, phases[i].parallel, phases[i].load_balance,
                    phases[i].load_balance, phases[i].communication, phases[i].communication,
                    phases[i].length, phases[i].length);
        }
        fputs("</tbody></table>\n", p->f);
    }
    if (n >= 0)
        free(phases);
    fputs("</section>\n", p->f);
}

static void ranks(struct page *p)
{
    if (!p->n)
        return;
    fputs("<section id=\"ranks\"><h2>Time per rank</h2>\n<p>Useful time (green), MPI "
          "(orange) and MPI_Init + MPI_Finalize (grey) of each rank: a longer green bar is a "
          "rank the others wait for.</p>\n",
          p->f);
    page_rank_bars(p->f, p->ranks, p->n);
    fputs("</section>\n", p->f);
}

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
        text(p, r->comm);
        fprintf(p->f, "</td><td data-v=\"%d\">%d</td><td class=\"t\">", r->size, r->size);
        text(p, r->op);
        fputs("</td><td class=\"t\">", p->f);
        text(p, r->kind);
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

static void communicators(struct page *p, const struct report_rows *cells)
{
    if (cells->count == 0)
        return;
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
        if (cli_startup_op(rows[i].op))
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
    if (ns) {
        fputs("<h3>MPI_Init and MPI_Finalize (outside the run)</h3>\n", p->f);
        op_table(p, startup, ns, 0, 10);
    }
    fputs("</section>\n", p->f);
    free(rows);
    free(startup);
}

static void sizes(struct page *p, const struct report_rows *cells)
{
    long long calls = 0;
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
    const char *file = c->file && *c->file ? c->file : "?", *slash = strrchr(file, '/');
    fprintf(p->f, "<tr><td data-v=\"%d\">%d</td><td class=\"t\" title=\"", c->id, c->id);
    text(p, file);
    fputs("\">", p->f);
    text(p, slash ? slash + 1 : file);
    fprintf(p->f, ":%d</td><td class=\"t\">", c->line);
    text(p, c->function ? c->function : "?");
    fputs("</td><td class=\"t\">", p->f);
    text(p, c->operation);
    fprintf(p->f,
            "</td><td data-v=\"%lld\">%lld</td><td data-v=\"%.9f\">%.6f</td>"
            "<td data-v=\"%.4f\">%.1f</td><td data-v=\"%.9f\">%.6f</td><td data-v=\"%lld\">%lld"
            "</td></tr>\n",
            c->calls, c->calls, c->time, c->time, mpi > 0 ? 100 * c->time / mpi : 0,
            mpi > 0 ? 100 * c->time / mpi : 0, c->max_call, c->max_call, c->bytes, c->bytes);
}

static void callsites(struct page *p)
{
    if (!(p->site_time > 0))
        return;
    fputs("<section id=\"callsites\"><h2>Call sites</h2>\n<p>The 20 lines of the application "
          "with the most MPI time, summed over ranks (file:line from the debug information; "
          "? without -g).</p>\n<div class=\"wide\"><table class=\"sortable\"><thead><tr>"
          "<th>site</th><th class=\"t\">file:line</th><th class=\"t\">function</th>"
          "<th class=\"t\">operation</th><th>calls</th><th>time (s)</th><th>% of MPI</th>"
          "<th>longest call (s)</th><th>bytes</th></tr></thead><tbody>\n",
          p->f);
    rundb_callsites_top(p->db, -1, 20, site_row, p);
    fputs("</tbody></table></div>\n</section>\n", p->f);
}

/* ---- the monitor, analyze, the trace ---- */

static void matrix(struct page *p)
{
    const struct page_matrix *m = &p->m;
    if (m->n == 0)
        return;
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

static void waits(struct page *p)
{
    if (!rundb_table_has_rows(p->db, "wait_times"))
        return;
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
                text(p, top->at[k].region);
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

static void trace(struct page *p)
{
    char anchor[4096], json[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", p->run);
    if (access(anchor, R_OK) != 0)
        return;
    snprintf(json, sizeof json, "%s/trace.json", p->run);
    fputs("<section id=\"trace\"><h2>Trace</h2>\n<p>The OTF2 trace is in <code>", p->f);
    text(p, anchor);
    fputs("</code> (Vampir, Scalasca, <code>otf2-print</code>). For the timeline in Perfetto "
          "(<a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a>, or chrome://tracing): "
          "<code>mpilens export ",
          p->f);
    text(p, p->run);
    fputs(" --chrome ", p->f);
    text(p, json);
    fputs("</code>", p->f);
    if (access(json, R_OK) == 0) {
        /* the link works where the page lies beside it, as RUN/report.html does */
        char *copy = strdup(p->path), *dir = copy ? dirname(copy) : NULL, *real_dir = NULL,
             *real_run = realpath(p->run, NULL);
        real_dir = dir ? realpath(dir, NULL) : NULL;
        int beside = real_dir && real_run && strcmp(real_dir, real_run) == 0;
        fputs(": exported, <a href=\"", p->f);
        text(p, beside ? "trace.json" : json);
        fputs("\">trace.json</a>", p->f);
        free(copy), free(real_dir), free(real_run);
    }
    fputs(".</p>\n</section>\n", p->f);
}

int page_write(sqlite3 *db, const char *run, const char *path)
{
    struct page p;
    memset(&p, 0, sizeof p);
    p.db = db, p.run = run, p.path = path;
    struct report_rows cells = {NULL, 0};
    struct report_query q = {.rank = -1, .bucket = -1, .top = -1, .sort = "time"};
    if (read_ranks(&p) != 0 ||
        (rundb_profile_has_rows(db) && report_query_rows(db, &q, &cells) != 0)) {
        free(p.ranks);
        errno = errno ? errno : EIO;
        return -1;
    }
    read_matrix(&p);
    p.site_time = rundb_profile_has_rows(db) ? rundb_callsites_time(db, -1) : 0;
    p.f = html_open_page(path, "mpilens report", style);
    if (p.f) {
        char anchor[4096];
        snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", run);
        /* the sections the run has data for, as page_write's calls below decide */
        const struct {
            const char *id, *name;
            int present;
        } sections[] = {{"summary", "summary", 1},
                        {"findings", "findings", 1},
                        {"efficiency", "efficiency", p.n > 0},
                        {"ranks", "ranks", p.n > 0},
                        {"communicators", "profile", cells.count > 0},
                        {"callsites", "call sites", p.site_time > 0},
                        {"matrix", "matrix", p.m.n > 0},
                        {"waits", "wait states", rundb_table_has_rows(db, "wait_times")},
                        {"trace", "trace", access(anchor, R_OK) == 0}};
        fputs("<nav>", p.f);
        for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
            if (sections[i].present)
                fprintf(p.f, "<a href=\"#%s\">%s</a>", sections[i].id, sections[i].name);
        fputs("</nav>\n", p.f);
        summary(&p);
        struct page_facts facts = {p.ranks, p.n, p.m.hosts, p.m.within, p.m.between_bytes};
        fputs("<section id=\"findings\"><h2>Findings</h2>\n", p.f);
        page_findings(p.f, db, &facts);
        fputs("</section>\n", p.f);
        efficiency(&p);
        ranks(&p);
        communicators(&p, &cells);
        sizes(&p, &cells);
        callsites(&p);
        matrix(&p);
        waits(&p);
        trace(&p);
        fprintf(p.f, "<script>%s</script>\n</body></html>\n", script);
    }
    int rc = p.f ? html_close_page(p.f, path) : -1;
    int why = errno;
    report_rows_free(&cells);
    free(p.ranks);
    free(p.host_of);
    free(p.m.bytes);
    free(p.m.between);
    errno = why;
    return rc;
}

int page_write_run(const char *run, char *path, size_t len)
{
    char file[4096], err[512];
    snprintf(file, sizeof file, "%s/mpilens.db", run);
    snprintf(path, len, "%s/report.html", run);
    sqlite3 *db = NULL;
    if (access(file, R_OK) != 0 || rundb_open_read(file, &db, err, sizeof err) != 0) {
        rundb_close(db);
        return 1;
    }
    int rc = page_write(db, run, path);
    int why = errno;
    rundb_close(db);
    errno = why;
    return rc;
}
