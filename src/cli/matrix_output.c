/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix_output.c: the matrix as a shaded terminal table (with the traffic within and
 * between hosts for a run on several), CSV, SVG or HTML heatmap; the histograms of one
 * rank; the I/O table.
 */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "matrix.h"
#include "rundb_read.h"
#include "report.h"

#define MAX_COLUMNS 12

static unsigned long long value(const struct matrix *m, const struct matrix_query *q, int s, int d)
{
    return (strcmp(q->metric, "count") == 0 ? m->count : m->bytes)[(size_t)s * m->n + d];
}

static void compact(unsigned long long v, int bytes, char *out, size_t len)
{
    static const char *const units[] = {"", "K", "M", "G", "T", "P"};
    double x = (double)v;
    int u = 0;
    while (x >= (bytes ? 1024 : 1000) && u < 5) {
        x /= bytes ? 1024 : 1000;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%llu", v);
    else
        snprintf(out, len, x < 10 ? "%.1f%s" : "%.0f%s", x, units[u]);
}

/* "I" for one rank, "FIRST-LAST" for group I of BLOCK ranks (of N). */
static void group_label(int i, int block, int n, char *out, size_t len)
{
    if (block > 1)
        snprintf(out, len, "%d-%d", i * block,
                 (i + 1) * block - 1 < n - 1 ? (i + 1) * block - 1 : n - 1);
    else
        snprintf(out, len, "%d", i);
}

void matrix_print_text(const struct matrix *m, const struct matrix_query *q, FILE *out)
{
    int block = (m->n + MAX_COLUMNS - 1) / MAX_COLUMNS, cols = (m->n + block - 1) / block;
    int bytes = strcmp(q->metric, "bytes") == 0;
    static const char *const shades[] = {" ", "░", "▒", "▓", "█"};
    unsigned long long *cell = calloc((size_t)cols * cols + 1, sizeof *cell), max = 0;
    for (int s = 0; s < m->n; s++)
        for (int d = 0; d < m->n; d++)
            cell[(s / block) * cols + d / block] += value(m, q, s, d);
    for (int i = 0; i < cols * cols; i++)
        max = cell[i] > max ? cell[i] : max;
    fprintf(out, "%s %s matrix%s%s, %d ranks%s (rows: senders, columns: receivers)\n", q->kind,
            bytes ? "bytes" : "message", q->phase ? ", phase " : "", q->phase ? q->phase : "", m->n,
            block > 1 ? ", ranks grouped" : "");
    fprintf(out, "%9s", "");
    for (int c = 0; c < cols; c++) {
        char label[16];
        group_label(c, block, m->n, label, sizeof label);
        fprintf(out, " %7s", label);
    }
    fputc('\n', out);
    for (int r = 0; r < cols; r++) {
        char label[16];
        group_label(r, block, m->n, label, sizeof label);
        fprintf(out, "%9s", label);
        for (int c = 0; c < cols; c++) {
            unsigned long long v = cell[r * cols + c];
            char num[16];
            compact(v, bytes, num, sizeof num);
            int shade = v == 0 || max == 0 ? 0 : 1 + (int)(3.999 * (double)v / (double)max);
            fprintf(out, " %6s%s", v ? num : ".", shades[shade]);
        }
        fputc('\n', out);
    }
    free(cell);
}

void matrix_print_csv(const struct matrix *m, const struct matrix_query *q, FILE *out)
{
    fprintf(out, "kind,src,dst,messages,bytes\n");
    for (int s = 0; s < m->n; s++)
        for (int d = 0; d < m->n; d++)
            if (m->count[(size_t)s * m->n + d] || m->bytes[(size_t)s * m->n + d])
                fprintf(out, "%s,%d,%d,%llu,%llu\n", q->kind, s, d, m->count[(size_t)s * m->n + d],
                        m->bytes[(size_t)s * m->n + d]);
}

/* The fill of a cell holding V of MAX: white for 0, then light to dark blue. */
static void shade_of(unsigned long long v, unsigned long long max, char *out, size_t len)
{
    int level = max && v ? (int)(215 - 175.0 * (double)v / (double)max) : 255;
    snprintf(out, len, "rgb(%d,%d,255)", level, level);
}

/* A heatmap with rank labels on both axes (every rank up to 32, else every 8th, 32nd...),
 * axis titles, a title naming the kind, metric and phase, and a colour scale with units. */
void matrix_print_svg(const struct matrix *m, const struct matrix_query *q, FILE *out)
{
    int cell = m->n <= 32 ? 24 : m->n <= 128 ? 6 : 2, left = 70, top = 70;
    int side = cell * m->n, width = left + side + 150, height = top + side + 50;
    int every = m->n <= 32 ? 1 : m->n <= 128 ? 8 : m->n <= 512 ? 32 : 128;
    int bytes = strcmp(q->metric, "bytes") == 0;
    const char *unit = bytes ? "bytes" : "messages";
    unsigned long long max = 0;
    for (int s = 0; s < m->n; s++)
        for (int d = 0; d < m->n; d++)
            max = value(m, q, s, d) > max ? value(m, q, s, d) : max;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\">\n<text x=\"%d\" y=\"18\" font-size=\"14\">",
            width, height, left);
    html_text(out, q->kind);
    fprintf(out, " matrix: %s sent%s", unit, q->phase ? ", phase " : "");
    if (q->phase)
        html_text(out, q->phase);
    fprintf(out, ", %d ranks</text>\n", m->n);
    fprintf(out, "<text x=\"%d\" y=\"40\" font-size=\"12\">receiver rank</text>\n",
            left + side / 2 - 35);
    fprintf(out,
            "<text x=\"14\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 14 %d)\">"
            "sender rank</text>\n",
            top + side / 2 + 35, top + side / 2 + 35);
    for (int i = 0; i < m->n; i += every) {
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%d</text>\n",
                left + i * cell + cell / 2, top - 6, i);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%d</text>\n",
                left - 4, top + i * cell + cell / 2 + 4, i);
    }
    for (int s = 0; s < m->n; s++)
        for (int d = 0; d < m->n; d++) {
            unsigned long long v = value(m, q, s, d);
            char fill[32];
            shade_of(v, max, fill, sizeof fill);
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                    "stroke=\"#eee\"><title>rank %d to rank %d: %llu %s</title></rect>\n",
                    left + d * cell, top + s * cell, cell, cell, fill, s, d, v, unit);
        }
    /* the colour scale: five steps from 0 to the largest cell */
    int sx = left + side + 20;
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n", sx, top - 6, unit);
    for (int k = 0; k <= 4; k++) {
        unsigned long long v = max * (unsigned long long)(4 - k) / 4;
        char fill[32], label[32];
        shade_of(v, max, fill, sizeof fill);
        compact(v, bytes, label, sizeof label);
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\" "
                "stroke=\"#999\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n",
                sx, top + k * 20, fill, sx + 22, top + k * 20 + 12, label);
    }
    fputs("</svg>\n", out);
}

void matrix_print_html(const struct matrix *m, const struct matrix_query *q, FILE *out)
{
    fprintf(out,
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mpilens matrix"
            "</title></head><body style=\"font-family:sans-serif\">\n<h1>%s %s matrix</h1>\n",
            q->kind, q->metric); /* (both from fixed lists) */
    matrix_print_svg(m, q, out);
    fputs("<pre>\n", out);
    matrix_print_csv(m, q, out);
    fputs("</pre></body></html>\n", out);
}

struct histogram {
    FILE *out;
    int csv, rows;
};

static void histogram_row(int dst, int bin, long long messages, void *ctx)
{
    struct histogram *h = ctx;
    h->rows++;
    if (h->csv) { /* bin 0: 0 bytes; bin b: 2^(b-1) to 2^b - 1 */
        unsigned long long low = bin == 0 ? 0 : 1ULL << (bin - 1);
        unsigned long long high = bin == 0 ? 0 : bin >= 64 ? ~0ULL : (1ULL << bin) - 1;
        fprintf(h->out, "%d,%llu,%llu,%lld\n", dst, low, high, messages);
        return;
    }
    char range[48];
    if (bin == 0)
        snprintf(range, sizeof range, "0");
    else if (bin == 1)
        snprintf(range, sizeof range, "1");
    else
        snprintf(range, sizeof range, "%llu-%llu", 1ULL << (bin - 1),
                 bin >= 64 ? ~0ULL : (1ULL << bin) - 1);
    fprintf(h->out, "%6d  %-21s %10lld\n", dst, range, messages);
}

int matrix_print_histogram(sqlite3 *db, const struct matrix_query *q, FILE *out)
{
    struct histogram h = {out, strcmp(q->format, "csv") == 0, 0};
    if (h.csv)
        fprintf(out, "peer,min_bytes,max_bytes,messages\n");
    else
        fprintf(out, "point-to-point message sizes sent by rank %d\n%6s  %-21s %10s\n",
                q->histogram, "PEER", "SIZE (bytes)", "MESSAGES");
    if (rundb_histogram_of(db, q->histogram, q->phase, histogram_row, &h) != 0)
        return 2;
    if (h.rows == 0 && !h.csv)
        fprintf(out, "(rank %d sent no point-to-point message)\n", q->histogram);
    return 0;
}

struct io_table {
    FILE *out;
    int csv;
};

static void io_row(const struct rundb_io *r, void *ctx)
{
    struct io_table *t = ctx;
    fprintf(t->out,
            t->csv ? "%d,%s,%lld,%lld,%lld,%lld\n" : "%6d  %-40.40s %8lld %12lld %8lld %12lld\n",
            r->rank, r->file, r->reads, r->bytes_read, r->writes, r->bytes_written);
}

int matrix_print_io(sqlite3 *db, const struct matrix_query *q, FILE *out)
{
    struct io_table t = {out, strcmp(q->format, "csv") == 0};
    fprintf(out,
            t.csv ? "rank,file,reads,bytes_read,writes,bytes_written\n"
                  : "%6s  %-40s %8s %12s %8s %12s\n",
            "RANK", "FILE", "READS", "BYTES READ", "WRITES", "BYTES WRITTEN");
    return rundb_io_rows(db, q->phase, io_row, &t) == 0 ? 0 : 2;
}

void matrix_print_nodes(sqlite3 *db, const struct matrix *m, FILE *out)
{
    char hosts[1024];
    if (rundb_host_summary(db, hosts, sizeof hosts) < 2)
        return;
    int *host_of = malloc((size_t)m->n * sizeof *host_of);
    if (!host_of || rundb_rank_hosts(db, host_of, m->n) != 0) {
        free(host_of);
        return;
    }
    unsigned long long count[2] = {0, 0}, bytes[2] = {0, 0}; /* within, between */
    for (int s = 0; s < m->n; s++)
        for (int d = 0; d < m->n; d++) {
            int between = host_of[s] != host_of[d] || host_of[s] < 0;
            count[between] += m->count[(size_t)s * m->n + d];
            bytes[between] += m->bytes[(size_t)s * m->n + d];
        }
    free(host_of);
    fprintf(out,
            "within hosts %llu messages, %llu bytes; between hosts %llu messages, %llu bytes\n"
            "hosts: %s\n",
            count[0], bytes[0], count[1], bytes[1], hosts);
}
