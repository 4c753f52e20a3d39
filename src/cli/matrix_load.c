/* matrix_load.c: read the monitor's matrix (summed over phases unless one is asked for)
 * from the run database; every filter is a bound parameter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "rundb.h"

int matrix_phase_exists(sqlite3 *db, const char *phase)
{
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM monitor_phases WHERE name = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, phase, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

static int ranks_of(sqlite3 *db)
{
    sqlite3_stmt *st;
    int n = 0;
    sqlite3_prepare_v2(db,
                       "SELECT MAX(COALESCE((SELECT CAST(value AS INTEGER) FROM metadata"
                       " WHERE key = 'Processes'), 0), COALESCE((SELECT MAX(MAX(src), MAX(dst))"
                       " + 1 FROM monitor_matrix), 0))",
                       -1, &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

int matrix_kinds(sqlite3 *db, char *out, size_t len)
{
    sqlite3_stmt *st;
    int n = 0;
    out[0] = '\0';
    if (sqlite3_prepare_v2(db,
                           "SELECT kind FROM (SELECT DISTINCT kind FROM monitor_matrix WHERE "
                           "messages > 0 OR bytes > 0) UNION SELECT 'io' FROM monitor_io "
                           "WHERE reads > 0 OR writes > 0 ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT DISTINCT kind FROM monitor_matrix WHERE messages > 0 OR "
                           "bytes > 0 ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s", n++ ? ", " : "",
                 (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return n;
}

int matrix_load(sqlite3 *db, const struct matrix_query *q, struct matrix *m)
{
    m->n = ranks_of(db);
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
                sqlite3_db_filename(db, "main"));
        return 2;
    }
    m->count = calloc((size_t)2 * m->n * m->n + 1, sizeof *m->count);
    if (!m->count) {
        fprintf(stderr, "mpilens: matrix: out of memory for %d x %d ranks\n", m->n, m->n);
        return 2;
    }
    m->bytes = m->count + (size_t)m->n * m->n;
    sqlite3_stmt *st;
    const char *sql = "SELECT m.src, m.dst, SUM(m.messages), SUM(m.bytes) FROM monitor_matrix m"
                      " JOIN monitor_phases p ON p.id = m.phase_id"
                      " WHERE (?1 IS NULL OR p.name = ?1)"
                      " AND (m.kind = ?2 OR (?2 = 'all' AND m.kind IN ('p2p', 'coll', 'rma')))"
                      " GROUP BY m.src, m.dst";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mpilens: matrix: the database cannot be read: %s\n", sqlite3_errmsg(db));
        free(m->count);
        return 2;
    }
    if (q->phase)
        sqlite3_bind_text(st, 1, q->phase, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, q->kind, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int s = sqlite3_column_int(st, 0), d = sqlite3_column_int(st, 1);
        if (s < 0 || d < 0 || s >= m->n || d >= m->n)
            continue;
        m->count[(size_t)s * m->n + d] = (unsigned long long)sqlite3_column_int64(st, 2);
        m->bytes[(size_t)s * m->n + d] = (unsigned long long)sqlite3_column_int64(st, 3);
    }
    sqlite3_finalize(st);
    return 0;
}
