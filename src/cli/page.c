/* SPDX-License-Identifier: BSD-3-Clause */
/* page.c: the run's page (page.h, docs/page.md): one self-contained HTML file (inline CSS,
 * SVG and a little JavaScript that sorts tables; nothing fetched). It reads what the page
 * needs (each rank's time, the matrix in groups), then writes, summary first:
 *   summary      the run's figures and one bar of where its time went;
 *   findings     the three largest (page_findings.c);
 *   efficiency   the POP metrics with their meanings, per phase when analyzed;
 *   ranks        where each rank's time went (the load-imbalance picture);
 * then the detail (page_detail.c), each section only when the run has its data:
 *   communicators and operations, sizes, call sites, matrix, wait states, trace.
 * Every string the run recorded is escaped.
 */
#define _GNU_SOURCE
#include <errno.h>
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
    "nav a{margin-right:1em}"
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
 * one (numbers), else by text; again reverses. Printing opens every folded part. */
static const char script[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.title='click to sort';th.addEventListener('click',function(){"
    "var body=th.closest('table').tBodies[0],i=th.cellIndex,up=th.dataset.dir!=='up';"
    "th.dataset.dir=up?'up':'down';var rows=Array.prototype.slice.call(body.rows);"
    "rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],d=x.dataset.v!==undefined?"
    "parseFloat(x.dataset.v)-parseFloat(y.dataset.v):x.textContent.localeCompare(y.textContent);"
    "return up?d:-d});rows.forEach(function(r){body.appendChild(r)})})});"
    "window.addEventListener('beforeprint',function(){"
    "document.querySelectorAll('details').forEach(function(d){d.open=true})});";

void page_text(struct page *p, const char *s)
{
    html_text(p->f, s ? s : "");
}

/* ---- what the page reads before it writes ---- */

static void count_rank(int rank, double exec, double mpi_all, double start, void *ctx)
{
    int *n = ctx;
    (void)exec, (void)mpi_all, (void)start;
    if (rank >= *n && rank < 1 << 24)
        *n = rank + 1;
}

static void add_rank_time(int rank, double exec, double mpi_all, double start, void *ctx)
{
    struct page *p = ctx;
    if (rank < 0 || rank >= p->n)
        return;
    double useful = exec - mpi_all, mpi = mpi_all - start;
    p->ranks[rank] = (struct page_rank_time){useful > 0 ? useful : 0, mpi > 0 ? mpi : 0, start};
}

/* Each rank's times (the ranks the profile recorded: a damaged count in the metadata makes
 * no array). */
static int read_ranks(struct page *p)
{
    if (!rundb_profile_has_rows(p->db) || rundb_rank_times(p->db, -1, count_rank, &p->n) != 0 ||
        p->n == 0)
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
    if (n <= 0 || n > 1 << 24) /* 2^24: a damaged count */
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
            page_text(p, value);
            fputs("</td></tr>\n", p->f);
        }
    if (rundb_host_summary(p->db, value, sizeof value) > 1) {
        fputs("<tr><td>hosts</td><td class=\"t\">", p->f);
        page_text(p, value);
        fputs("</td></tr>\n", p->f);
    }
    if (p->has_eff) {
        const struct pop_factors e = p->eff;
        double start = 0;
        for (int r = 0; r < p->n; r++)
            start += p->ranks[r].startup;
        snprintf(value, sizeof value, "%.6f s, the longest rank's, from MPI_Init to MPI_Finalize",
                 e.run);
        figure(p, "run", value);
        snprintf(value, sizeof value,
                 "%.1f %% of ranks x the run in MPI calls (%.6f s summed; Init and Finalize "
                 "outside)",
                 100 * e.mpi_share, e.mpi_sum);
        figure(p, "MPI share", value);
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
    const struct pop_factors e = p->eff;
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
              "<th>communication</th><th>serialization</th><th>transfer</th><th>length (s)</th>"
              "</tr></thead><tbody>\n",
              p->f);
        for (int i = 0; i < n; i++) {
            fputs("<tr><td class=\"t\">", p->f);
            page_text(p, phases[i].name);
            fputs("</td>", p->f);
            double v[] = {phases[i].parallel,      phases[i].load_balance, phases[i].communication,
                          phases[i].serialization, phases[i].transfer,     phases[i].length};
            for (int k = 0; k < 6; k++)
                if (v[k] < 0) /* a replay without the phase's ideal time */
                    fputs("<td data-v=\"-1\">-</td>", p->f);
                else
                    fprintf(p->f,
                            k < 5 ? "<td data-v=\"%.6f\">%.3f</td>"
                                  : "<td data-v=\"%.6f\">%.6f</td>",
                            v[k], v[k]);
            fputs("</tr>\n", p->f);
        }
        fputs("</tbody></table>\n", p->f);
    }
    if (n >= 0)
        free(phases);
    fputs("</section>\n", p->f);
}

static void ranks(struct page *p)
{
    fputs("<section id=\"ranks\"><h2>Time per rank</h2>\n<p>Useful time (green), MPI "
          "(orange) and MPI_Init + MPI_Finalize (grey) of each rank: a longer green bar is a "
          "rank the others wait for.</p>\n",
          p->f);
    page_rank_bars(p->f, p->ranks, p->n);
    fputs("</section>\n", p->f);
}

static void findings(struct page *p)
{
    struct page_facts facts = {
        p->ranks, p->n, p->m.hosts, p->m.within, p->m.between_bytes, p->has_eff ? &p->eff : NULL};
    fputs("<section id=\"findings\"><h2>Findings</h2>\n", p->f);
    page_findings(p->f, p->db, &facts);
    fputs("</section>\n", p->f);
}

/* The sections in the page's order: the navigation's name (NULL: not listed) and writer. */
static const struct section {
    const char *id, *name;
    void (*write)(struct page *p);
} sections[] = {{"summary", "summary", summary},
                {"findings", "findings", findings},
                {"efficiency", "efficiency", efficiency},
                {"ranks", "ranks", ranks},
                {"communicators", "profile", page_communicators},
                {"sizes", NULL, page_sizes},
                {"callsites", "call sites", page_callsites},
                {"matrix", "matrix", page_matrix_section},
                {"waits", "wait states", page_waits},
                {"trace", "trace", page_trace}};
#define SECTIONS (sizeof sections / sizeof *sections)

int page_write(sqlite3 *db, const char *run, const char *path)
{
    struct page p;
    memset(&p, 0, sizeof p);
    p.db = db, p.run = run, p.path = path;
    struct report_query q = {.rank = -1, .bucket = -1, .top = -1, .sort = "time"};
    if (read_ranks(&p) != 0 ||
        (rundb_profile_has_rows(db) && report_query_rows(db, &q, &p.cells) != 0)) {
        free(p.ranks);
        errno = errno ? errno : EIO;
        return -1;
    }
    p.has_eff = p.n > 0 && pop_run_factors(db, &p.eff) == 0;
    read_matrix(&p);
    p.site_time =
        rundb_profile_has_rows(db) ? rundb_callsites_time(db, -1, RUNDB_PROGRAM_CALLS) : 0;
    char anchor[4096];
    page_trace_anchor(run, anchor, sizeof anchor);
    /* which sections the run has data for, decided once, in the order of sections[] */
    const int present[SECTIONS] = {1,
                                   1,
                                   p.has_eff,
                                   p.n > 0,
                                   p.cells.count > 0,
                                   1,
                                   p.site_time > 0,
                                   p.m.n > 0,
                                   rundb_table_has_rows(db, "wait_times"),
                                   access(anchor, R_OK) == 0};
    p.f = html_open_page(path, "mpilens report", style);
    if (p.f) {
        fputs("<nav>", p.f);
        for (size_t i = 0; i < SECTIONS; i++)
            if (present[i] && sections[i].name)
                fprintf(p.f, "<a href=\"#%s\">%s</a>", sections[i].id, sections[i].name);
        fputs("</nav>\n", p.f);
        for (size_t i = 0; i < SECTIONS; i++)
            if (present[i])
                sections[i].write(&p);
        fprintf(p.f, "<script>%s</script>\n</body></html>\n", script);
    }
    int rc = p.f ? html_close_page(p.f, path) : -1;
    int why = errno;
    report_rows_free(&p.cells);
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
