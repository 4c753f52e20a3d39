/* SPDX-License-Identifier: BSD-3-Clause */
/* site_table.h: the answer of a `mpilens site` question as rows of text cells, printed
 * as a table that fits 80 columns, as CSV (a header row naming the columns) or as JSON
 * (an array of objects; cells that look numeric are numbers, empty ones null).
 */
#ifndef SITE_TABLE_H
#define SITE_TABLE_H

#include <stdio.h>

enum site_format { SITE_TEXT, SITE_CSV, SITE_JSON };

struct site_column {
    const char *name;  /* CSV and JSON */
    const char *title; /* the table's heading */
    int width;         /* the table's width; negative: left-aligned */
};

struct site_table {
    const struct site_column *cols;
    int ncols;
    char **cells; /* row-major, malloc'ed */
    long nrows, cap;
};

void site_table_init(struct site_table *t, const struct site_column *cols, int ncols);
/* Appends a row of NCOLS cells (copied). */
void site_table_add(struct site_table *t, const char *const *cells);
/* Prints T; in JSON as an array (the caller writes any enclosing object). */
void site_table_print(const struct site_table *t, enum site_format format, FILE *out);
void site_table_free(struct site_table *t);

#endif
