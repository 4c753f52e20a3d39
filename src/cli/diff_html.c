/* SPDX-License-Identifier: BSD-3-Clause */
/* diff_html.c: `mpilens diff --html FILE`: one self-contained page (no scripts, no network)
 * with the overall change, a chart of the largest changes (bars right of the axis: time B
 * adds, left: time it saves), the matrix's B - A as a heatmap (red: more bytes in B, blue:
 * fewer), and the tables of the text output. Every text from a run is escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "html.h"

static const char *const section_titles[DIFF_SECTIONS] = {
    "Overall", "Profile (time summed over ranks; Init/Finalize left out)", "Call sites",
    "Matrix (bytes)", "Wait states (time summed over ranks)"};

/* The largest changes of SECTION as horizontal bars around a zero axis. */
static void change_chart(FILE *f, const struct diff *d, int section, int top)
{
    const struct diff_row *rows[64];
    int n = 0;
    double most = 0;
    for (int i = 0; i < d->nrows && n < top && n < 64; i++) {
        const struct diff_row *r = &d->rows[i];
        if (r->section != section || r->delta == 0)
            continue;
        rows[n++] = r;
        most = fmax(most, fabs(r->delta));
    }
    if (!n)
        return;
    int width = 900, label = 330, half = (width - label - 40) / 2, bar = 22;
    int axis = label + half, height = 50 + n * bar;
    fprintf(f,
            "<svg class=\"chart\" width=\"%d\" height=\"%d\" role=\"img\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            width, height);
    fprintf(f,
            "<text x=\"%d\" y=\"16\" text-anchor=\"middle\">B - A (%s): right, B takes more; "
            "left, B takes less</text>\n",
            axis, rows[0]->unit);
    fprintf(f, "<line x1=\"%d\" y1=\"24\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", axis, axis,
            height - 10);
    for (int i = 0; i < n; i++) {
        const struct diff_row *r = rows[i];
        int y = 30 + i * bar, w = (int)((half - 130) * fabs(r->delta) / most);
        if (w < 1)
            w = 1;
        int x = r->delta > 0 ? axis : axis - w;
        fprintf(f,
                "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
                x, y, w, bar - 6, r->delta > 0 ? "#c0392b" : "#2e86c1");
        char delta[32];
        diff_format(r->delta, r->unit, 1, delta, sizeof delta);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\">", label - 6,
                y + 12);
        html_text(f, r->label[0]);
        fputs(" ", f);
        html_text(f, r->label[1]);
        fputs(" ", f);
        html_text(f, r->label[2]);
        fprintf(
            f,
            "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"%s\">%s %s</text>\n",
            r->delta > 0 ? x + w + 4 : x - 4, y + 12, r->delta > 0 ? "start" : "end", delta,
            diff_verdict_name(r->verdict));
    }
    fputs("</svg>\n", f);
}

/* The matrix of KIND as B - A: one cell per (source, destination). */
static void matrix_heatmap(FILE *f, const struct diff *d, const char *kind)
{
    int n = d->runs[0].processes;
    if (n <= 0 || n > 512)
        return;
    double *cells = calloc((size_t)n * n, sizeof *cells), most = 0;
    if (!cells)
        return;
    for (int i = 0; i < d->nrows; i++) {
        const struct diff_row *r = &d->rows[i];
        int src, dst;
        if (r->section != DIFF_MATRIX || strcmp(r->label[0], kind) != 0 ||
            sscanf(r->label[1], "%d -> %d", &src, &dst) != 2 || src < 0 || dst < 0 || src >= n ||
            dst >= n)
            continue;
        cells[(size_t)src * n + dst] = r->delta;
        most = fmax(most, fabs(r->delta));
    }
    int cell = n <= 32 ? 22 : n <= 128 ? 6 : 2, left = 70, top = 60;
    int side = n * cell, width = left + side + 160, height = top + side + 50;
    fprintf(f,
            "<svg class=\"heatmap\" width=\"%d\" height=\"%d\" role=\"img\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            width, height);
    fprintf(f, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\">", left + side / 2);
    html_text(f, kind);
    fputs(" bytes, B - A</text>\n", f);
    fprintf(f, "<text x=\"%d\" y=\"44\" text-anchor=\"middle\">receiver rank</text>\n",
            left + side / 2);
    fprintf(f,
            "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 20 %d)\">"
            "sender rank</text>\n",
            top + side / 2, top + side / 2);
    for (int s = 0; s < n; s++)
        for (int t = 0; t < n; t++) {
            double v = cells[(size_t)s * n + t];
            int level = most > 0 ? (int)(230 * fabs(v) / most) : 0;
            char fill[32];
            if (v > 0)
                snprintf(fill, sizeof fill, "rgb(255,%d,%d)", 255 - level, 255 - level);
            else if (v < 0)
                snprintf(fill, sizeof fill, "rgb(%d,%d,255)", 255 - level, 255 - level);
            else
                snprintf(fill, sizeof fill, "#fff");
            fprintf(f,
                    "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"%s\" stroke=\"#ddd\"><title>%d -&gt; %d: %+.0f bytes</title></rect>\n",
                    left + t * cell, top + s * cell, cell, cell, fill, s, t, v);
        }
    int step = n <= 32 ? 1 : n <= 128 ? 8 : 32;
    for (int r = 0; r < n; r += step) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%d</text>\n",
                left - 4, top + r * cell + cell / 2 + 4, r);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%d</text>\n",
                left + r * cell + cell / 2, top - 4, r);
    }
    char most_text[32];
    diff_format(most, "B", 0, most_text, sizeof most_text);
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"rgb(255,25,25)\"/>"
            "<text x=\"%d\" y=\"%d\" font-size=\"11\">+%s (B sends more)</text>\n"
            "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"rgb(25,25,255)\"/>"
            "<text x=\"%d\" y=\"%d\" font-size=\"11\">-%s (B sends less)</text>\n",
            left + side + 10, top, left + side + 30, top + 12, most_text, left + side + 10,
            top + 24, left + side + 30, top + 36, most_text);
    fputs("</svg>\n", f);
    free(cells);
}

/* Each section's label columns (as the text view heads them): an empty name ends them. */
static const char *const column_names[DIFF_SECTIONS][3] = {{"figure", "", ""},
                                                           {"communicator", "operation", "bucket"},
                                                           {"call site", "operation", ""},
                                                           {"kind", "source -> destination", ""},
                                                           {"pattern", "region", ""}};

static void table(FILE *f, const struct diff *d, int section, int top)
{
    int columns = 0;
    while (columns < 3 && column_names[section][columns][0])
        columns++;
    int shown = 0;
    for (int i = 0; i < d->nrows; i++) {
        const struct diff_row *r = &d->rows[i];
        if (r->section != section || (section != DIFF_OVERALL && r->verdict == DIFF_SAME))
            continue;
        if (section != DIFF_OVERALL && shown >= top)
            break;
        if (!shown++) {
            fputs("<h2>", f);
            html_text(f, section_titles[section]);
            fputs("</h2>\n<table>\n<tr>", f);
            for (int k = 0; k < columns; k++) {
                fputs("<th>", f);
                html_text(f, column_names[section][k]);
                fputs("</th>", f);
            }
            fputs("<th>A</th><th>B</th><th>B - A</th><th>verdict</th></tr>\n", f);
        }
        char a[32], b[32], delta[32];
        diff_format(r->mean_a, r->unit, 0, a, sizeof a);
        diff_format(r->mean_b, r->unit, 0, b, sizeof b);
        diff_format(r->delta, r->unit, 1, delta, sizeof delta);
        fputs("<tr>", f);
        for (int k = 0; k < columns; k++) { /* the last column takes what is left */
            fputs("<td>", f);
            html_text(f, r->label[k]);
            for (int more = k + 1; k == columns - 1 && more < 3; more++)
                if (r->label[more][0]) {
                    fputs(" ", f);
                    html_text(f, r->label[more]);
                }
            fputs("</td>", f);
        }
        const char *presence = diff_presence(d, r);
        fprintf(f,
                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                "<td class=\"%s\">%s%s%s</td></tr>\n",
                a, b, delta, r->verdict == DIFF_CHANGED ? "changed" : "v",
                diff_verdict_name(r->verdict), *presence ? ", " : "", presence);
    }
    if (shown)
        fputs("</table>\n", f);
}

int diff_write_html(const struct diff *d, int top, const char *path)
{
    FILE *f = html_open_page(path, "mpilens diff",
                             "body{font-family:sans-serif;margin:2em}table{border-collapse:"
                             "collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:"
                             "2px 8px}td.n{text-align:right;font-family:monospace}td.changed{"
                             "color:#c0392b;font-weight:bold}");
    if (!f)
        return -1;
    fputs("<p>", f);
    for (int side = 0; side < 2; side++) {
        int first = side ? d->na : 0, count = side ? d->nb : d->na;
        fprintf(f, "<b>%s</b>: ", side ? "B" : "A");
        for (int i = first; i < first + count; i++) {
            html_text(f, d->runs[i].path);
            fputs(i + 1 < first + count ? ", " : "", f);
        }
        fprintf(f, " (%d ranks)<br>\n", d->runs[first].processes);
    }
    fputs("Program: ", f);
    html_text(f, d->runs[0].command);
    if (d->na < 2 || d->nb < 2)
        fputs("<br>\nNoise: not judged, one run on a side.</p>\n", f);
    else
        fprintf(f,
                "<br>\nNoise: from %d + %d runs; <i>changed</i>: the ranges of the two sides "
                "apart (by more than the larger range, or by 5 standard errors), and at least %g "
                "%% of the larger side's MPI "
                "time.</p>\n",
                d->na, d->nb, 100 * d->min_share);
    for (int i = 0; i < d->na + d->nb; i++)
        if (d->runs[i].incomplete[0]) {
            fputs("<p>Incomplete run: ", f);
            html_text(f, d->runs[i].path);
            fputs(": ", f);
            html_text(f, d->runs[i].incomplete);
            fputs("</p>\n", f);
        }
    table(f, d, DIFF_OVERALL, top);
    for (int s = DIFF_PROFILE; s < DIFF_SECTIONS; s++) {
        if (s == DIFF_PROFILE || s == DIFF_WAITS) {
            int before = (int)ftell(f);
            table(f, d, s, top);
            if ((int)ftell(f) != before)
                change_chart(f, d, s, top);
        } else if (s == DIFF_MATRIX) {
            const char *kind = NULL; /* the kind of the largest change */
            for (int i = 0; i < d->nrows && !kind; i++)
                if (d->rows[i].section == DIFF_MATRIX && d->rows[i].verdict != DIFF_SAME)
                    kind = d->rows[i].label[0];
            table(f, d, s, top);
            if (kind)
                matrix_heatmap(f, d, kind);
        } else {
            table(f, d, s, top);
        }
    }
    fputs("</body></html>\n", f);
    return html_close_page(f, path);
}
