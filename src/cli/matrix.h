/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix.h: the pieces of `mpilens matrix`: loading (matrix_load.c) and the output
 * formats (matrix_output.c, matrix_prof.c).
 */
#ifndef LENS_MATRIX_H
#define LENS_MATRIX_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

struct matrix_query {
    const char *db, *kind, *metric, *format, *phase, *output;
    int histogram;
};

struct matrix {
    int n;                             /* ranks */
    unsigned long long *count, *bytes; /* n x n, row = sender */
};

int matrix_phase_exists(sqlite3 *db, const char *phase);
#define MATRIX_MAX_RANKS 8192 /* a dense matrix of 8192 ranks takes 1 GiB */
/* Loads the matrix of q (dense, m->n ranks). 0, or 2 after a one-line message. */
/* The kinds with traffic in the database ("coll, io, p2p") into OUT; how many. */
int matrix_kinds(sqlite3 *db, char *out, size_t len);
int matrix_load(sqlite3 *db, const struct matrix_query *q, struct matrix *m);
void matrix_print_text(const struct matrix *m, const struct matrix_query *q, FILE *out);
void matrix_print_csv(const struct matrix *m, const struct matrix_query *q, FILE *out);
void matrix_print_svg(const struct matrix *m, const struct matrix_query *q, FILE *out);
void matrix_print_html(const struct matrix *m, const struct matrix_query *q, FILE *out);
/* Under the text matrix of a run on several hosts: the messages and bytes within a host
 * and between hosts (monitor_hosts); nothing for a run on one host. */
void matrix_print_nodes(sqlite3 *db, const struct matrix *m, FILE *out);
int matrix_print_histogram(sqlite3 *db, const struct matrix_query *q, FILE *out);
int matrix_print_io(sqlite3 *db, const struct matrix_query *q, FILE *out);
int matrix_print_prof(sqlite3 *db, const struct matrix_query *q);

#endif
