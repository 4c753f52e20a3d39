/* SPDX-License-Identifier: BSD-3-Clause */
/* site_table.c: printing a `mpilens site` answer (site_table.h). Text cells wider than
 * their column are cut with '~' so the table keeps its width, and their control characters
 * are escaped (\x1b: a job's name cannot drive the terminal); CSV and JSON keep them whole,
 * quoted and escaped.
 */
#include "site_table.h"
#include "text_fields.h"
#include "text_utf8.h"

#include <stdlib.h>
#include <string.h>

void site_table_init(struct site_table *t, const struct site_column *cols, int ncols)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols;
}

void site_table_add(struct site_table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->cells = realloc(t->cells, (size_t)(t->cap * t->ncols) * sizeof *t->cells);
    }
    for (int c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = strdup(cells[c] ? cells[c] : "");
    t->nrows++;
}

static int numeric(const char *s)
{
    if (!*s)
        return 0;
    char *end;
    strtod(s, &end);
    return *end == 0 && strcmp(s, "nan") != 0 && strcmp(s, "inf") != 0 && strcmp(s, "-inf") != 0;
}

static void text_cell(FILE *out, const char *raw, int width)
{
    char text[1024]; /* what a user wrote reaches the terminal with its controls escaped */
    lens_escape_controls(text, sizeof text, raw);
    int w = abs(width), len = (int)strlen(text);
    if (len > w)
        fprintf(out, "%.*s~", w - 1, text);
    else if (width < 0)
        fprintf(out, "%-*s", w, text);
    else
        fprintf(out, "%*s", w, text);
}

void site_table_print(const struct site_table *t, enum site_format format, FILE *out)
{
    if (format == SITE_CSV) {
        for (int c = 0; c < t->ncols; c++)
            fprintf(out, "%s%s", c ? "," : "", t->cols[c].name);
        fputc('\n', out);
        for (long r = 0; r < t->nrows; r++) {
            for (int c = 0; c < t->ncols; c++) {
                if (c)
                    fputc(',', out);
                lens_csv_field(out, t->cells[r * t->ncols + c]);
            }
            fputc('\n', out);
        }
        return;
    }
    if (format == SITE_JSON) {
        fputc('[', out);
        for (long r = 0; r < t->nrows; r++) {
            fputs(r ? ",\n {" : "\n {", out);
            for (int c = 0; c < t->ncols; c++) {
                const char *v = t->cells[r * t->ncols + c];
                fprintf(out, "%s\"%s\": ", c ? ", " : "", t->cols[c].name);
                if (!*v)
                    fputs("null", out);
                else if (numeric(v))
                    fputs(v, out);
                else
                    lens_json_string(out, v);
            }
            fputc('}', out);
        }
        fputs(t->nrows ? "\n]" : "]", out);
        return;
    }
    /* the table: the columns with a width (the others are for scripts) */
    for (long r = -1; r < t->nrows; r++) {
        int first = 1;
        for (int c = 0; c < t->ncols; c++) {
            if (!t->cols[c].width)
                continue;
            if (!first)
                fputc(' ', out);
            first = 0;
            text_cell(out, r < 0 ? t->cols[c].title : t->cells[r * t->ncols + c], t->cols[c].width);
        }
        fputc('\n', out);
    }
}

void site_table_free(struct site_table *t)
{
    for (long i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
