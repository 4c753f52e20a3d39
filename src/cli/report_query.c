/* SPDX-License-Identifier: BSD-3-Clause */
/* report_query.c: the profile cells `mpilens report` shows, read through src/db
 * (rundb_profile_cells: every filter a bound parameter, calls counted as mpisee-through
 * counts them).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

int report_query_rows(sqlite3 *db, const struct report_query *q, struct report_rows *out)
{
    struct rundb_profile_filter f = {q->comm, q->op, q->kind, q->sort, q->rank, q->bucket, q->top};
    memset(out, 0, sizeof *out);
    return rundb_profile_cells(db, &f, &out->rows, &out->count);
}

void report_rows_free(struct report_rows *rows)
{
    free(rows->rows);
    rows->rows = NULL;
    rows->count = 0;
}
