/* report_html.c: `mpilens report --html FILE`: one self-contained HTML page (no scripts,
 * no network) with the report's tables and two SVG charts: time per communicator and
 * operation (horizontal bars) and calls per message-size bucket (histogram). With --waits:
 * the wait-state table and a chart of the waiting time per pattern.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html.h"
#include "report.h"

struct bar {
    char label[128];
    double value;
};

static int by_value_desc(const void *a, const void *b)
{
    double x = ((const struct bar *)a)->value, y = ((const struct bar *)b)->value;
    return (x < y) - (x > y);
}

/* Horizontal bars, the largest first (25 at most); the label column is as wide as the
 * longest label, so no label runs into its bar. */
static void bar_chart(FILE *f, struct bar *bars, int n, const char *unit)
{
    qsort(bars, n, sizeof *bars, by_value_desc);
    if (n > 25)
        n = 25;
    double max = n ? bars[0].value : 0;
    size_t longest = 0;
    for (int i = 0; i < n; i++)
        longest = strlen(bars[i].label) > longest ? strlen(bars[i].label) : longest;
    int labels = 7 * (int)longest + 12, h = 22 * n + 10;
    fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">\n", labels + 480 + 220, h);
    for (int i = 0; i < n; i++) {
        double w = max > 0 ? 480 * bars[i].value / max : 0;
        fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"12\">", 22 * i + 16);
        html_text(f, bars[i].label);
        fprintf(f,
                "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#3b7dd8\"/>"
                "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.6g %s</text>\n",
                labels, 22 * i + 4, w, labels + 6 + w, 22 * i + 16, bars[i].value, unit);
    }
    fputs("</svg>\n", f);
}

/* Calls per message-size bucket: bars over an x axis of sizes (bytes) and a y axis of
 * calls, with the largest count marked. */
static void size_histogram(FILE *f, const struct report_rows *rows)
{
    long long calls[64] = {0}, lo[64] = {0}, hi[64] = {0};
    int nb = 0;
    for (int i = 0; i < rows->count; i++) {
        int b = rows->rows[i].bucket;
        if (b < 0 || b >= 64)
            continue;
        calls[b] += rows->rows[i].calls;
        lo[b] = rows->rows[i].bucket_min;
        hi[b] = rows->rows[i].bucket_max;
        if (b + 1 > nb)
            nb = b + 1;
    }
    long long max = 0;
    for (int b = 0; b < nb; b++)
        max = calls[b] > max ? calls[b] : max;
    int x0 = 60, width = x0 + 90 * nb + 20;
    fprintf(f, "<svg width=\"%d\" height=\"260\" role=\"img\">\n", width);
    fprintf(f,
            "<line x1=\"%d\" y1=\"190\" x2=\"%d\" y2=\"190\" stroke=\"#333\"/>"
            "<line x1=\"%d\" y1=\"15\" x2=\"%d\" y2=\"190\" stroke=\"#333\"/>\n"
            "<text x=\"%d\" y=\"250\" font-size=\"12\">message size (bytes)</text>\n"
            "<text x=\"14\" y=\"120\" font-size=\"12\" transform=\"rotate(-90 14 120)\">"
            "calls</text>\n<text x=\"%d\" y=\"194\" font-size=\"11\" "
            "text-anchor=\"end\">0</text>\n<text x=\"%d\" y=\"24\" font-size=\"11\" "
            "text-anchor=\"end\">%lld</text>\n",
            x0, width - 10, x0, x0, x0 + 90 * nb / 2 - 50, x0 - 4, x0 - 4, max);
    for (int b = 0; b < nb; b++) {
        double h = max > 0 ? 170.0 * calls[b] / max : 0;
        char label[32];
        report_bucket_label(lo[b], hi[b], label, sizeof label);
        fprintf(f,
                "<rect x=\"%d\" y=\"%.1f\" width=\"70\" height=\"%.1f\" fill=\"#d8823b\"/>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"11\">%lld</text>"
                "<text x=\"%d\" y=\"215\" font-size=\"11\">%s</text>\n",
                x0 + 10 + 90 * b, 190 - h, h, x0 + 12 + 90 * b, 186 - h, calls[b], x0 + 10 + 90 * b,
                calls[b] || lo[b] || hi[b] ? label : "");
    }
    fputs("</svg>\n", f);
}

static void table(FILE *f, const struct report_rows *rows)
{
    fputs("<table><tr><th>communicator</th><th>size</th><th>operation</th><th>bucket</th>"
          "<th>calls</th><th>max rank (s)</th><th>avg rank (s)</th><th>longest (s)</th>"
          "<th>volume</th></tr>\n",
          f);
    for (int i = 0; i < rows->count; i++) {
        const struct rundb_profile_cell *r = &rows->rows[i];
        char bucket[32], volume[32];
        report_bucket_label(r->bucket_min, r->bucket_max, bucket, sizeof bucket);
        report_bytes(r->volume, volume, sizeof volume);
        fputs("<tr><td>", f);
        html_text(f, r->comm);
        fprintf(f, "</td><td>%d</td><td>", r->comm_size);
        html_text(f, r->op);
        fprintf(f,
                "</td><td>%s</td><td>%lld</td><td>%.6f</td><td>%.6f</td><td>%.6f</td><td>%s</td>"
                "</tr>\n",
                bucket, r->calls, r->max_time, r->avg_time, r->longest, volume);
    }
    fputs("</table>\n<p><b>calls</b>: summed over ranks, a collective counted once (divided by "
          "the communicator's size) and a Sendrecv once per exchange (halved). <b>max rank</b> "
          "and <b>avg rank</b>: a rank's total time in these calls, the largest and the "
          "average over ranks. <b>longest</b>: the longest single call. <b>volume</b>: bytes "
          "sent, summed over ranks.</p>\n",
          f);
}

int report_write_html(sqlite3 *db, const struct report_query *q, const struct report_rows *rows,
                      const char *path)
{
    FILE *f = html_open_page(path, "mpilens report",
                             "body{font-family:sans-serif;margin:2em}table{border-collapse:"
                             "collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:"
                             "right}td:first-child,td:nth-child(3){text-align:left}");
    if (!f)
        return -1;
    fputs("<pre>", f);
    /* the text part holds what the run recorded (its command line, host names): escaped,
     * so that an argument such as <script> stays text */
    char *text = NULL;
    size_t text_len = 0;
    FILE *mem = open_memstream(&text, &text_len);
    if (mem) {
        report_print_metadata(db, mem);
        report_print_overall(db, q, mem);
        if (q->rank < 0)
            report_print_efficiency(db, mem);
        fclose(mem);
        html_text(f, text ? text : "");
        free(text);
    }
    fputs("</pre>\n<h2>Time per communicator and operation</h2>\n", f);
    struct bar *bars = calloc(rows->count + 1, sizeof *bars);
    int n = 0;
    for (int i = 0; i < rows->count; i++) {
        char label[128];
        snprintf(label, sizeof label, "%s %s", rows->rows[i].comm, rows->rows[i].op);
        int j = 0;
        while (j < n && strcmp(bars[j].label, label) != 0)
            j++;
        if (j == n)
            snprintf(bars[n++].label, sizeof bars->label, "%s", label);
        bars[j].value += rows->rows[i].total_time;
    }
    bar_chart(f, bars, n, "s (sum over ranks)");
    free(bars);
    fputs("<h2>Calls per message size</h2>\n", f);
    size_histogram(f, rows);
    fputs("<h2>Profile</h2>\n", f);
    table(f, rows);
    fputs("</body></html>\n", f);
    return html_close_page(f, path);
}

/* The bars of a chart, filled from a reader's rows (64 at most). */
struct bars {
    struct bar at[64];
    int n;
};

static void add_bar(const char *label, double value, void *ctx)
{
    struct bars *b = ctx;
    if (b->n >= 64)
        return;
    snprintf(b->at[b->n].label, sizeof b->at[b->n].label, "%s", label);
    b->at[b->n++].value = value;
}

int report_write_waits_html(sqlite3 *db, int rank, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mpilens wait "
          "states</title>\n<style>body{font-family:sans-serif;margin:2em}</style></head><body>\n"
          "<h1>mpilens wait states</h1>\n<h2>Waiting time per pattern</h2>\n",
          f);
    struct bars chart = {.n = 0};
    rundb_waits_by_pattern(db, rank, add_bar, &chart);
    struct bar *bars = chart.at;
    int n = chart.n;
    if (n)
        bar_chart(f, bars, n, "s (sum over ranks)");
    else
        fputs("<p>No waiting time was found.</p>\n", f);
    fputs("<h2>Table</h2>\n<pre>", f);
    char *text = NULL; /* the text report, escaped (region names come from the trace) */
    size_t text_len = 0;
    FILE *mem = open_memstream(&text, &text_len);
    if (mem) {
        report_print_waits(db, rank, mem);
        fclose(mem);
        html_text(f, text ? text : "");
        free(text);
    }
    fputs("</pre>\n</body></html>\n", f);
    return html_close_page(f, path);
}
