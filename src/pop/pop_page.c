/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_page.c: the scaling table's page (pop_scaling.h), in the style of the run's page:
 * the efficiencies drawn against the rank counts as lines (one inline SVG, the counts
 * evenly spaced as they usually double), the speedup against the ideal one, and the table
 * with each cell coloured by POP's bands; each column's heading links to its run's page.
 * A write that fails leaves no page (html_close_page).
 */
#include "pop_scaling.h"

#include <stdio.h>

#include "html.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1em auto;max-width:1100px;padding:0 1em;color:#222}"
    "h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
    "padding:2px 10px;text-align:right}th{background:#f2f2f2}td.t{text-align:left}"
    "td.good{background:#c8e6c9}td.fair{background:#ffe0a0}td.poor{background:#f4b4b4}"
    ".note{color:#555}";

static const char *const colours[POP_METRICS] = {"#000",    "#222",    "#1565c0", "#2e7d32",
                                                 "#c62828", "#8e24aa", "#ef6c00", "#00838f"};

#define W 780
#define H 300
#define LEFT 50
#define TOP 20
#define PLOT_W 500
#define PLOT_H 240

static double x_of(const struct pop_table *t, int i)
{
    return LEFT + (t->n > 1 ? (double)PLOT_W * i / (t->n - 1) : PLOT_W / 2.0);
}

/* One chart: the metrics FIRST..LAST (or speedup alone with the ideal line) against ranks. */
static void chart(FILE *f, const struct pop_table *t, int first, int last, double top,
                  const char *id)
{
    fprintf(f, "<svg id=\"%s\" width=\"%d\" height=\"%d\" role=\"img\">\n", id, W, H);
    for (int k = 0; k <= 4; k++) {
        double v = top * k / 4, y = TOP + PLOT_H - PLOT_H * v / top;
        fprintf(f,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.2g</text>\n",
                LEFT, LEFT + PLOT_W, y, y, LEFT - 4, y + 4, v);
    }
    for (int i = 0; i < t->n; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>\n",
                x_of(t, i), TOP + PLOT_H + 16, t->points[i].ranks);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">ranks</text>\n",
            LEFT + PLOT_W / 2, H - 2);
    int legend = 0;
    for (int m = first; m <= last; m++) {
        const double *v = t->value[m];
        int any = 0;
        for (int i = 0; i < t->n; i++)
            any |= v[i] >= 0;
        if (!any)
            continue;
        fprintf(f,
                "<polyline class=\"metric\" data-metric=\"%s\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"2\" points=\"",
                pop_metric_name(m), colours[m]);
        for (int i = 0; i < t->n; i++)
            if (v[i] >= 0)
                fprintf(f, "%.1f,%.1f ", x_of(t, i),
                        TOP + PLOT_H - PLOT_H * (v[i] > top ? top : v[i]) / top);
        fputs("\"/>\n", f);
        for (int i = 0; i < t->n; i++) /* a point alone (one run analyzed) shows too */
            if (v[i] >= 0)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x_of(t, i),
                        TOP + PLOT_H - PLOT_H * (v[i] > top ? top : v[i]) / top, colours[m]);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n",
                LEFT + PLOT_W + 12, TOP + 14 + 16 * legend++, colours[m], pop_metric_name(m));
    }
    if (first == POP_SPEEDUP) { /* the ideal speedup: n / n_ref (strong and weak) */
        const struct pop_point *r = &t->points[t->ref];
        fputs("<polyline fill=\"none\" stroke=\"#999\" stroke-dasharray=\"4 3\" points=\"", f);
        for (int i = 0; i < t->n; i++) {
            double ideal = (double)t->points[i].ranks / r->ranks;
            fprintf(f, "%.1f,%.1f ", x_of(t, i),
                    TOP + PLOT_H - PLOT_H * (ideal > top ? top : ideal) / top);
        }
        fprintf(f, "\"/><text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#999\">ideal</text>\n",
                LEFT + PLOT_W + 12, TOP + 14 + 16 * legend);
    }
    fputs("</svg>\n", f);
}

static void table(FILE *f, const struct pop_table *t)
{
    fputs("<table id=\"scaling\"><thead><tr><th>metric</th>", f);
    for (int i = 0; i < t->n; i++) {
        fputs("<th>", f);
        if (t->points[i].page[0]) {
            fputs("<a href=\"", f);
            html_text(f, t->points[i].page);
            fprintf(f, "\">%d</a>", t->points[i].ranks);
        } else {
            fprintf(f, "%d", t->points[i].ranks);
        }
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (int m = 0; m < POP_METRICS; m++) {
        fputs("<tr><td class=\"t\">", f);
        html_text(f, pop_metric_name(m));
        fputs("</td>", f);
        for (int i = 0; i < t->n; i++) {
            double v = t->value[m][i];
            const char *band = m == POP_SPEEDUP || v < 0 ? ""
                               : v >= 0.8                ? " class=\"good\""
                               : v >= 0.6                ? " class=\"fair\""
                                                         : " class=\"poor\"";
            if (v < 0)
                fprintf(f, "<td>-</td>");
            else
                fprintf(f, "<td%s>%.3f</td>", band, v);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

int pop_write_page(const struct pop_table *t, const char *path)
{
    FILE *f = html_open_page(path, "mpilens: scaling", style);
    if (!f)
        return -1;
    fputs("<p class=\"note\">", f);
    html_text(f, t->program);
    fprintf(f,
            ": %s scaling against %d rank%s. Efficiencies of 0.8 or above are good (green),"
            " 0.6 to 0.8 fair (amber), below 0.6 poor (red); read the table top to bottom "
            "to see which factor falls first. Each column's heading opens its run's page.</p>\n",
            t->weak ? "weak" : "strong", t->points[t->ref].ranks,
            t->points[t->ref].ranks == 1 ? "" : "s");
    fputs("<h2>Efficiencies</h2>\n", f);
    double top = 1.0;
    for (int m = POP_GLOBAL; m < POP_METRICS; m++)
        for (int i = 0; i < t->n; i++)
            top = t->value[m][i] > top ? t->value[m][i] : top;
    chart(f, t, POP_GLOBAL, POP_COMPUTATION, top > 1.5 ? 1.5 : top, "efficiencies");
    fputs("<h2>Speedup</h2>\n", f);
    double most = 1;
    for (int i = 0; i < t->n; i++) {
        double ideal = (double)t->points[i].ranks / t->points[t->ref].ranks;
        most = ideal > most ? ideal : most;
        most = t->value[POP_SPEEDUP][i] > most ? t->value[POP_SPEEDUP][i] : most;
    }
    chart(f, t, POP_SPEEDUP, POP_SPEEDUP, most, "speedup");
    fputs("<h2>The table</h2>\n", f);
    table(f, t);
    fputs("</body></html>\n", f);
    return html_close_page(f, path);
}
