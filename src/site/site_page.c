/* SPDX-License-Identifier: BSD-3-Clause */
/* site_page.c: the site page (site_page.h), in the style of the run's page (docs/page.md):
 * the answers of site_query.c drawn as tables (sortable by a click) and inline SVG charts,
 * no file besides the page itself. A write that fails leaves no page (html_close_page).
 */
#include "site_page.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "html.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1em auto;max-width:1200px;padding:0 1em;color:#222}"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
    "padding:2px 8px;text-align:right}th{background:#f2f2f2;cursor:pointer}td.t{text-align:left}"
    ".note{color:#555}.changed{color:#b00;font-weight:bold}";

static const char script[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.addEventListener('click',function(){var body=th.closest('table').tBodies[0],"
    "i=th.cellIndex,up=th.dataset.dir!=='up';th.dataset.dir=up?'up':'down';"
    "var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){"
    "var x=a.cells[i].textContent,y=b.cells[i].textContent,fx=parseFloat(x),fy=parseFloat(y);"
    "var d=isNaN(fx)||isNaN(fy)?x.localeCompare(y):fx-fy;return up?d:-d});"
    "rows.forEach(function(r){body.appendChild(r)})})});";

static const char *cell(const struct site_table *t, long r, int c)
{
    return t->cells[r * t->ncols + c];
}

static void table_html(FILE *f, const struct site_table *t, const char *id)
{
    fprintf(f, "<table class=\"sortable\" id=\"%s\"><thead><tr>", id);
    for (int c = 0; c < t->ncols; c++) {
        fputs("<th>", f);
        html_text(f, t->cols[c].name);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (long r = 0; r < t->nrows; r++) {
        fputs("<tr>", f);
        for (int c = 0; c < t->ncols; c++) {
            const char *v = cell(t, r, c);
            char *end;
            strtod(v, &end);
            int text = !*v || *end;
            fprintf(f, "<td%s>",
                    strstr(v, "changed") ? " class=\"t changed\""
                    : text               ? " class=\"t\""
                                         : "");
            html_text(f, v);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* A horizontal bar chart of usage's SECTION rows: their item and share. */
static void bars(FILE *f, const struct site_table *u, const char *section, const char *title)
{
    int n = 0;
    for (long r = 0; r < u->nrows; r++)
        n += strcmp(cell(u, r, 0), section) == 0;
    if (!n)
        return;
    n = n > 20 ? 20 : n;
    fprintf(f, "<h3>");
    html_text(f, title);
    fprintf(f,
            "</h3>\n<svg class=\"bars\" data-section=\"%s\" width=\"760\" height=\"%d\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            section, 22 * n + 6);
    int i = 0;
    for (long r = 0; r < u->nrows && i < n; r++) {
        if (strcmp(cell(u, r, 0), section) != 0)
            continue;
        double share = atof(cell(u, r, 3));
        fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"12\">", 22 * i + 16);
        html_text(f, cell(u, r, 1));
        fprintf(f,
                "</text><rect x=\"240\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#3b7dd8\">"
                "<title>%.2f %%</title></rect><text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.1f "
                "%%</text>\n",
                22 * i + 4, 420 * share, 100 * share, 246 + 420 * share, 22 * i + 16, 100 * share);
        i++;
    }
    fputs("</svg>\n", f);
}

/* APP's weekly median efficiency and MPI share as two lines over its periods. */
static void trend_chart(FILE *f, const struct site_table *t, const char *app)
{
    int w = 760, h = 180, left = 40, bottom = 20;
    fprintf(f, "<svg class=\"trend\" data-app=\"");
    html_text(f, app);
    fprintf(f, "\" width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n", w, h);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", left, h - bottom,
            w, h - bottom);
    fprintf(f,
            "<text x=\"0\" y=\"12\" font-size=\"11\">1.0</text><text x=\"0\" y=\"%d\" "
            "font-size=\"11\">0</text>\n",
            h - bottom);
    static const struct {
        int col;
        const char *colour, *name;
    } lines[] = {{2, "#3b7dd8", "parallel efficiency"}, {6, "#d8843b", "MPI share"}};
    for (int l = 0; l < 2; l++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                lines[l].colour);
        for (long r = 0; r < t->nrows; r++) {
            double x = left + (t->nrows > 1 ? (double)(w - left - 10) * r / (t->nrows - 1) : 0);
            double y = (h - bottom) - (h - bottom - 10) * atof(cell(t, r, lines[l].col));
            fprintf(f, "%.1f,%.1f ", x, y);
        }
        fprintf(f, "\"><title>%s</title></polyline>\n", lines[l].name);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>\n",
                left + 10 + 170 * l, h - 4, lines[l].colour, lines[l].name);
    }
    fputs("</svg>\n", f);
}

int site_page_write(struct site_store *s, const struct site_filter *f, const char *path, char *err,
                    size_t n)
{
    struct site_table apps, jobs, usage;
    long read = 0, ignore;
    if (site_query_apps(s, f, 0, &apps, &read, err, n))
        return -1;
    if (site_query_jobs(s, f, SITE_BY_MPI_CORE_HOURS, 50, &jobs, &ignore, err, n) ||
        site_query_usage(s, f, &usage, &ignore, err, n)) {
        site_table_free(&apps);
        return -1;
    }
    FILE *out = html_open_page(path, "mpilens site", style);
    if (!out) {
        snprintf(err, n, "%s: cannot write the page: %s", path, strerror(errno));
        site_table_free(&apps);
        site_table_free(&jobs);
        site_table_free(&usage);
        return -1;
    }
    fprintf(out, "<p class=\"note\" id=\"summary\">%ld jobs of ", read);
    html_text(out, site_name(s));
    fprintf(out, " (%s, read as ", site_is_pg(s) ? "PostgreSQL" : "SQLite");
    html_text(out, site_role(s));
    fputs(")</p>\n<h2>Applications</h2>\n<p class=\"note\">By core-hours (ranks x length); "
          "MPI core-hours are the time in MPI summed over ranks.</p>\n",
          out);
    table_html(out, &apps, "apps");
    fputs("<h2>Jobs</h2>\n<p class=\"note\">The 50 with the most MPI core-hours.</p>\n", out);
    table_html(out, &jobs, "jobs");
    fputs("<h2>Usage</h2>\n", out);
    bars(out, &usage, "operations", "Operations, by share of MPI core-hours");
    bars(out, &usage, "kinds", "Point-to-point, collectives, one-sided, file I/O");
    bars(out, &usage, "message_sizes", "Point-to-point messages by size");
    bars(out, &usage, "communicators", "Communicator sizes (the costliest pairs of each job)");
    bars(out, &usage, "ranks_per_job", "Ranks per job");
    /* the trends of the last 26 weeks (a half-year a chart can show week by week) */
    double since = 0;
    int rc = site_query_recent(s, f, 26, &since, err, n);
    char from[32] = "no jobs yet";
    time_t at = (time_t)since;
    struct tm tm;
    if (apps.nrows > 0)
        strftime(from, sizeof from, "from %Y-%m-%d", gmtime_r(&at, &tm));
    fprintf(out,
            "<h2>Trends</h2>\n<p class=\"note\">The five largest applications, week by week "
            "over the last 26 weeks of their jobs (%s): median parallel efficiency "
            "(blue) and MPI share (orange); a change beyond the run-to-run noise is marked as "
            "mpilens diff judges it.</p>\n",
            from);
    for (long a = 0; a < apps.nrows && a < 5 && rc == 0; a++) {
        struct site_filter one = *f;
        one.app = cell(&apps, a, 0);
        one.since = since;
        struct site_table trend;
        if (site_query_trend(s, &one, SITE_BY_WEEK, &trend, &ignore, err, n)) {
            rc = -1;
            break;
        }
        fputs("<h3>", out);
        html_text(out, one.app);
        fputs("</h3>\n", out);
        trend_chart(out, &trend, one.app);
        char id[64];
        snprintf(id, sizeof id, "trend-%ld", a);
        table_html(out, &trend, id);
        site_table_free(&trend);
    }
    fprintf(out, "<script>%s</script>\n</body></html>\n", script);
    site_table_free(&apps);
    site_table_free(&jobs);
    site_table_free(&usage);
    if (rc) {
        fclose(out);
        unlink(path);
    } else if (html_close_page(out, path) != 0) {
        snprintf(err, n, "%s: the page could not be written whole: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}
