/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix_load.c: the monitor's matrix (summed over phases unless one is asked for), read
 * through src/db (rundb_read.h) into a dense n x n matrix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "rundb_read.h"

int matrix_phase_exists(sqlite3 *db, const char *phase)
{
    return rundb_matrix_phase_exists(db, phase);
}

int matrix_kinds(sqlite3 *db, char *out, size_t len)
{
    return rundb_matrix_kinds(db, out, len);
}

static void put_cell(int s, int d, long long messages, long long bytes, void *ctx)
{
    struct matrix *m = ctx;
    if (s < 0 || d < 0 || s >= m->n || d >= m->n)
        return;
    m->count[(size_t)s * m->n + d] = (unsigned long long)messages;
    m->bytes[(size_t)s * m->n + d] = (unsigned long long)bytes;
}

int matrix_load(sqlite3 *db, const struct matrix_query *q, struct matrix *m)
{
    m->n = rundb_matrix_ranks(db);
    if (m->n < 0 || m->n > MATRIX_MAX_RANKS) {
        fprintf(stderr,
                "mpilens: matrix: %d ranks: more than %d cannot be shown as a dense matrix; "
                "query the monitor_matrix table with sqlite3 instead\n",
                m->n, MATRIX_MAX_RANKS);
        return 2;
    }
    if (m->n == 0) {
        fprintf(stderr,
                "mpilens: matrix: %s: no ranks recorded (no 'Processes' in its metadata, no "
                "matrix rows): a damaged or empty database; give the mpilens.db of a run\n",
                rundb_path(db));
        return 2;
    }
    m->count = calloc((size_t)2 * m->n * m->n + 1, sizeof *m->count);
    if (!m->count) {
        fprintf(stderr, "mpilens: matrix: out of memory for %d x %d ranks\n", m->n, m->n);
        return 2;
    }
    m->bytes = m->count + (size_t)m->n * m->n;
    char err[512];
    if (rundb_matrix_cells(db, q->kind, q->phase, put_cell, m, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: matrix: %s\n", err);
        free(m->count);
        return 2;
    }
    return 0;
}
