/* SPDX-License-Identifier: BSD-3-Clause */
/* page_svg.c: the pictures of the run's page (page.h), as inline SVG with a viewBox, so
 * that each scales down to the page's width and prints: stacked time bars per run and per
 * rank, horizontal bars, the message-size histogram and the matrix heatmap. Every label
 * that comes from the run is escaped; every cell's exact figures are in its title.
 */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "page.h"

#define MAX_ROWS PAGE_MAX_ROWS

/* An <svg> W x H wide at most, narrower when the page is. */
static void svg_open(FILE *f, int w, int h, const char *label)
{
    fprintf(f,
            "<svg viewBox=\"0 0 %d %d\" style=\"width:100%%;max-width:%dpx\" role=\"img\" "
            "aria-label=\"%s\" font-family=\"sans-serif\">\n",
            w, h, w, label);
}

static const char *const part_names[3] = {"useful", "MPI", "Init+Finalize"};
static const char *const part_colours[3] = {"#4a9c5d", "#e0803a", "#9e9e9e"};

/* One stacked bar at Y: the three parts of T scaled by SCALE px per second, each with its
 * figures in its title (WHO: "rank 3"). */
static void stacked_bar(FILE *f, int x, int y, int h, double scale, const double t[3],
                        const char *who, const char *extra)
{
    double sum = t[0] + t[1] + t[2], at = x;
    for (int p = 0; p < 3; p++) {
        double w = t[p] * scale;
        if (w <= 0)
            continue;
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s "
                "%.6f s (%.1f %% of its time from start to end)%s</title></rect>",
                at, y, w, h, part_colours[p], who, part_names[p], t[p],
                sum > 0 ? 100 * t[p] / sum : 0, extra);
        at += w;
    }
    fputc('\n', f);
}

/* The run's time over ranks: the three parts' sums. */
static void sums(const struct page_rank_time *ranks, int n, double total[3], double *longest)
{
    total[0] = total[1] = total[2] = *longest = 0;
    for (int r = 0; r < n; r++) {
        total[0] += ranks[r].useful, total[1] += ranks[r].mpi, total[2] += ranks[r].startup;
        double t = ranks[r].useful + ranks[r].mpi + ranks[r].startup;
        *longest = t > *longest ? t : *longest;
    }
}

void page_run_bar(FILE *f, const struct page_rank_time *ranks, int n)
{
    double total[3], longest;
    sums(ranks, n, total, &longest);
    double sum = total[0] + total[1] + total[2];
    int left = 110, width = 1000, bar = width - left - 20;
    svg_open(f, width, 48, "where the time went, all ranks");
    for (int p = 0; p < 3; p++)
        fprintf(f,
                "<rect x=\"%d\" y=\"2\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" "
                "y=\"12\" font-size=\"12\">%s %.3f s</text>\n",
                left + 190 * p, part_colours[p], left + 190 * p + 16, part_names[p], total[p]);
    fprintf(f, "<text x=\"0\" y=\"36\" font-size=\"12\">all ranks</text>\n");
    stacked_bar(f, left, 24, 18, sum > 0 ? bar / sum : 0, total, "all ranks", " summed over ranks");
    fputs("</svg>\n", f);
}

void page_rank_bars(FILE *f, const struct page_rank_time *ranks, int n)
{
    int block = (n + MAX_ROWS - 1) / MAX_ROWS, rows = (n + block - 1) / block;
    int left = 110, width = 1000, bar = width - left - 20, h = 14, top = 22;
    double total[3], longest;
    sums(ranks, n, total, &longest);
    svg_open(f, width, top + rows * (h + 4) + 6, "where the time went, per rank");
    fprintf(f,
            "<text x=\"0\" y=\"12\" font-size=\"11\" fill=\"#555\">per %s, on one scale (the "
            "longest: %.3f s)</text>\n",
            block > 1 ? "group of ranks (their average)" : "rank", longest);
    double scale = longest > 0 ? bar / longest : 0;
    for (int g = 0; g < rows; g++) {
        int first = g * block, last = first + block - 1 < n - 1 ? first + block - 1 : n - 1;
        double t[3] = {0, 0, 0}, lo = -1, hi = 0;
        for (int r = first; r <= last; r++) {
            t[0] += ranks[r].useful, t[1] += ranks[r].mpi, t[2] += ranks[r].startup;
            lo = lo < 0 || ranks[r].useful < lo ? ranks[r].useful : lo;
            hi = ranks[r].useful > hi ? ranks[r].useful : hi;
        }
        int members = last - first + 1;
        for (int p = 0; p < 3; p++)
            t[p] /= members;
        char who[48], extra[96] = "";
        if (members > 1) {
            snprintf(who, sizeof who, "ranks %d-%d", first, last);
            snprintf(extra, sizeof extra, ", average; useful from %.6f to %.6f s", lo, hi);
        } else {
            snprintf(who, sizeof who, "rank %d", first);
        }
        int y = top + g * (h + 4);
        fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"11\">%s</text>", y + 11, who);
        stacked_bar(f, left, y, h, scale, t, who, extra);
    }
    fputs("</svg>\n", f);
}

struct bar {
    const char *label;
    double value;
};

static int by_value_desc(const void *a, const void *b)
{
    double x = ((const struct bar *)a)->value, y = ((const struct bar *)b)->value;
    return (x < y) - (x > y);
}

void page_bar_chart(FILE *f, char (*labels)[128], const double *values, int n, const char *unit)
{
    struct bar *bars = calloc((size_t)n + 1, sizeof *bars);
    if (!bars)
        return;
    for (int i = 0; i < n; i++)
        bars[i] = (struct bar){labels[i], values[i]};
    qsort(bars, (size_t)n, sizeof *bars, by_value_desc);
    n = n > 25 ? 25 : n;
    double max = n ? bars[0].value : 0;
    int left = 330, bar = 430, width = left + bar + 200;
    svg_open(f, width, 22 * n + 10, "bars");
    for (int i = 0; i < n; i++) {
        double w = max > 0 ? bar * bars[i].value / max : 0;
        /* a label too long for its column is cut, whole in its title */
        fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"12\"><title>", 22 * i + 16);
        html_text(f, bars[i].label);
        fputs("</title>", f);
        char shown[48];
        snprintf(shown, sizeof shown, strlen(bars[i].label) > 44 ? "%.41s..." : "%s",
                 bars[i].label);
        html_text(f, shown);
        fprintf(f,
                "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#3b7dd8\"/>"
                "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.6g %s</text>\n",
                left, 22 * i + 4, w, left + 6 + w, 22 * i + 16, bars[i].value, unit);
    }
    fputs("</svg>\n", f);
    free(bars);
}

void page_size_histogram(FILE *f, const struct report_rows *rows)
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
    svg_open(f, width < 400 ? 400 : width, 260, "calls per message size");
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
                "<rect x=\"%d\" y=\"%.1f\" width=\"70\" height=\"%.1f\" fill=\"#d8823b\">"
                "<title>%s bytes: %lld calls</title></rect>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"11\">%lld</text>"
                "<text x=\"%d\" y=\"215\" font-size=\"11\">%s</text>\n",
                x0 + 10 + 90 * b, 190 - h, h, label, calls[b], x0 + 12 + 90 * b, 186 - h, calls[b],
                x0 + 10 + 90 * b, calls[b] || lo[b] || hi[b] ? label : "");
    }
    fputs("</svg>\n", f);
}

/* The fill of a cell holding V of MAX: white for 0, then light to dark blue. */
static void shade(unsigned long long v, unsigned long long max, char *out, size_t len)
{
    int level = max && v ? (int)(215 - 175.0 * (double)v / (double)max) : 255;
    snprintf(out, len, "rgb(%d,%d,255)", level, level);
}

/* "3" for one rank, "0-15" for a group. */
static void ranks_label(int g, int block, int n, char *out, size_t len)
{
    int last = (g + 1) * block - 1 < n - 1 ? (g + 1) * block - 1 : n - 1;
    if (block > 1)
        snprintf(out, len, "ranks %d-%d", g * block, last);
    else
        snprintf(out, len, "rank %d", g);
}

void page_heatmap(FILE *f, const struct page_matrix *pm)
{
    int n = pm->n, block = pm->block, cols = pm->cols;
    const unsigned long long *b = pm->bytes, *m = pm->messages;
    const char *between = pm->between;
    unsigned long long max = 0;
    for (size_t c = 0; c < (size_t)cols * cols; c++)
        max = b[c] > max ? b[c] : max;
    int cell = 640 / cols > 60 ? 60 : 640 / cols, left = 80, top = 50, side = cell * cols;
    int every = cols <= 16 ? 1 : cols <= 32 ? 4 : 8;
    svg_open(f, left + side + 170, top + side + 20, "communication matrix");
    fprintf(f, "<text x=\"%d\" y=\"14\" font-size=\"12\">receiver</text>\n", left);
    fprintf(f,
            "<text x=\"14\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 14 %d)\">sender"
            "</text>\n",
            top + side / 2 + 20, top + side / 2 + 20);
    for (int g = 0; g < cols; g += every) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%d</text>",
                left + g * cell + cell / 2, top - 6, g * block);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%d</text>\n",
                left - 4, top + g * cell + cell / 2 + 4, g * block);
    }
    for (int s = 0; s < cols; s++)
        for (int d = 0; d < cols; d++) {
            size_t c = (size_t)s * cols + d;
            char fill[32], from[40], to[40];
            shade(b[c], max, fill, sizeof fill);
            ranks_label(s, block, n, from, sizeof from);
            ranks_label(d, block, n, to, sizeof to);
            fprintf(f,
                    "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"%s\" stroke=\"%s\"><title>%s to %s: %llu bytes, %llu messages%s"
                    "</title></rect>\n",
                    left + d * cell, top + s * cell, cell, cell, fill,
                    between[c] ? "#c0392b" : "#e4e4e4", from, to, b[c], m[c],
                    between[c] ? " (between hosts)" : "");
        }
    /* the colour scale: five steps from 0 to the largest cell */
    int sx = left + side + 20;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">bytes</text>\n", sx, top - 6);
    for (int k = 0; k <= 4; k++) {
        unsigned long long v = max * (unsigned long long)(4 - k) / 4;
        char fill[32], label[32];
        shade(v, max, fill, sizeof fill);
        report_bytes((long long)v, label, sizeof label);
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\" stroke=\"#999\"/>"
                "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n",
                sx, top + k * 20, fill, sx + 22, top + k * 20 + 12, label);
    }
    if (pm->hosts > 1)
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"none\" "
                "stroke=\"#c0392b\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">between hosts"
                "</text>\n",
                sx, top + 110, sx + 22, top + 122);
    fputs("</svg>\n", f);
}
