/* SPDX-License-Identifier: BSD-3-Clause */
/* report_html.c: `mpilens report --waits --html FILE`: the wait-state table and a chart of
 * the waiting time per pattern on one page. (The run's page, `report --html` without
 * --waits, is page.c's.)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "html.h"
#include "page.h"
#include "report.h"

/* The bars of a chart, filled from a reader's rows (64 at most). */
struct bars {
    char labels[64][128];
    double values[64];
    int n;
};

static void add_bar(const char *label, double value, void *ctx)
{
    struct bars *b = ctx;
    if (b->n >= 64)
        return;
    snprintf(b->labels[b->n], sizeof b->labels[b->n], "%s", label);
    b->values[b->n++] = value;
}

int report_write_waits_html(sqlite3 *db, int rank, const char *path)
{
    FILE *f =
        html_open_page(path, "mpilens wait states", "body{font-family:sans-serif;margin:2em}");
    if (!f)
        return -1;
    fputs("<h2>Waiting time per pattern</h2>\n", f);
    struct bars chart = {.n = 0};
    rundb_waits_by_pattern(db, rank, add_bar, &chart);
    if (chart.n)
        page_bar_chart(f, chart.labels, chart.values, chart.n, "s (sum over ranks)");
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
