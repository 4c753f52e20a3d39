/* report_query.c: read the profile cells that `mpilens report` shows. Every filter is a
 * bound parameter; the ORDER BY clause is picked from a fixed list, never built from
 * user text. Calls are counted as mpisee-through counts them: point-to-point calls summed
 * over ranks (Sendrecv halved: one exchange, two calls), collective calls divided by the
 * communicator size (one call per collective), unless one rank is selected.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char base_sql[] =
    "SELECT c.name, c.size, c.members, o.operation, o.kind, p.bucket, b.min, b.max,"
    " SUM(p.calls), MAX(p.time), AVG(p.time), SUM(p.volume), SUM(p.time),"
    " (SELECT SUM(q.volume) FROM profile q WHERE q.comm_id = c.id) AS comm_volume,"
    " MAX(p.max_time)"
    " FROM profile p JOIN communicators c ON c.id = p.comm_id"
    " JOIN operations o ON o.id = p.operation_id JOIN buckets b ON b.bucket = p.bucket"
    " WHERE (?1 IS NULL OR c.name = ?1) AND (?2 IS NULL OR o.operation = ?2)"
    " AND (?3 IS NULL OR p.rank = ?3) AND (?4 IS NULL OR o.kind = ?4)"
    " AND (?5 IS NULL OR p.bucket = ?5)"
    " GROUP BY c.id, o.id, p.bucket ";

static const char *order_clause(const struct report_query *q)
{
    const char *key = strcmp(q->sort, "calls") == 0    ? "SUM(p.calls)"
                      : strcmp(q->sort, "volume") == 0 ? "SUM(p.volume)"
                                                       : "MAX(p.time)";
    static char clause[128];
    /* Grouped view: communicators by volume (as mpisee-through), rows by KEY inside. */
    if (q->top > 0)
        snprintf(clause, sizeof clause, "ORDER BY %s DESC, c.name, o.id, p.bucket LIMIT ?6", key);
    else
        snprintf(clause, sizeof clause,
                 "ORDER BY comm_volume DESC, c.name, %s DESC, o.id, p.bucket", key);
    return clause;
}

static void copy_text(char *dst, size_t len, const unsigned char *src)
{
    snprintf(dst, len, "%s", src ? (const char *)src : "");
}

int report_query_rows(sqlite3 *db, const struct report_query *q, struct report_rows *out)
{
    memset(out, 0, sizeof *out);
    char sql[2048];
    snprintf(sql, sizeof sql, "%s%s", base_sql, order_clause(q));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (q->comm)
        sqlite3_bind_text(st, 1, q->comm, -1, SQLITE_STATIC);
    if (q->op)
        sqlite3_bind_text(st, 2, q->op, -1, SQLITE_STATIC);
    if (q->rank >= 0)
        sqlite3_bind_int(st, 3, q->rank);
    if (q->kind)
        sqlite3_bind_text(st, 4, q->kind, -1, SQLITE_STATIC);
    if (q->bucket >= 0)
        sqlite3_bind_int(st, 5, q->bucket);
    if (q->top > 0)
        sqlite3_bind_int(st, 6, q->top);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        out->rows = realloc(out->rows, (out->count + 1) * sizeof *out->rows);
        struct report_row *r = &out->rows[out->count++];
        memset(r, 0, sizeof *r);
        copy_text(r->comm, sizeof r->comm, sqlite3_column_text(st, 0));
        r->comm_size = sqlite3_column_int(st, 1);
        copy_text(r->members, sizeof r->members, sqlite3_column_text(st, 2));
        copy_text(r->op, sizeof r->op, sqlite3_column_text(st, 3));
        copy_text(r->kind, sizeof r->kind, sqlite3_column_text(st, 4));
        r->bucket = sqlite3_column_int(st, 5);
        r->bucket_min = sqlite3_column_int64(st, 6);
        r->bucket_max = sqlite3_column_int64(st, 7);
        r->calls = sqlite3_column_int64(st, 8);
        r->max_time = sqlite3_column_double(st, 9);
        r->avg_time = sqlite3_column_double(st, 10);
        r->volume = sqlite3_column_int64(st, 11);
        r->total_time = sqlite3_column_double(st, 12);
        r->longest = sqlite3_column_double(st, 14);
        if (q->rank < 0) {
            if (strcmp(r->op, "Sendrecv") == 0)
                r->calls /= 2;
            else if (strcmp(r->kind, "coll") == 0 && r->comm_size > 0)
                r->calls /= r->comm_size;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

void report_rows_free(struct report_rows *rows)
{
    free(rows->rows);
    rows->rows = NULL;
    rows->count = 0;
}
