/* matrix_prof.c: `mpilens matrix --format prof`: the data as Open MPI's monitoring writes
 * it (one PREFIX.RANK.prof file per rank with -o PREFIX, else all ranks on stdout), so its
 * profile2mat.pl and aggregate_profile.pl scripts read our runs:
 *   E src dst "B bytes" "N msgs sent" histogram   point-to-point (user messages)
 *   S / R src dst ...                             one-sided sent / received
 *   C src dst ...                                 collectives, decomposed
 *   D name "procs: ..." then O2A/A2O/A2A rank "B bytes" "N msgs sent"  per communicator
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

static void peer_lines(sqlite3 *db, const struct matrix_query *q, int rank, const char *kind,
                       const char *tag, int with_histogram, FILE *out)
{
    sqlite3_stmt *st, *hist;
    sqlite3_prepare_v2(db,
                       "SELECT m.dst, SUM(m.bytes), SUM(m.messages) FROM monitor_matrix m"
                       " JOIN monitor_phases p ON p.id = m.phase_id WHERE m.src = ?1"
                       " AND m.kind = ?2 AND (?3 IS NULL OR p.name = ?3) GROUP BY m.dst"
                       " ORDER BY m.dst",
                       -1, &st, NULL);
    sqlite3_prepare_v2(db,
                       "SELECT h.bin, SUM(h.messages) FROM monitor_histogram h"
                       " JOIN monitor_phases p ON p.id = h.phase_id WHERE h.src = ?1"
                       " AND h.dst = ?2 AND (?3 IS NULL OR p.name = ?3) GROUP BY h.bin",
                       -1, &hist, NULL);
    sqlite3_bind_int(st, 1, rank);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    if (q->phase)
        sqlite3_bind_text(st, 3, q->phase, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int dst = sqlite3_column_int(st, 0);
        fprintf(out, "%s\t%d\t%d\t%lld bytes\t%lld msgs sent", tag, rank, dst,
                (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2));
        if (with_histogram) {
            long long bins[66] = {0};
            sqlite3_bind_int(hist, 1, rank);
            sqlite3_bind_int(hist, 2, dst);
            if (q->phase)
                sqlite3_bind_text(hist, 3, q->phase, -1, SQLITE_STATIC);
            while (sqlite3_step(hist) == SQLITE_ROW) {
                int b = sqlite3_column_int(hist, 0);
                if (b >= 0 && b < 66)
                    bins[b] = sqlite3_column_int64(hist, 1);
            }
            sqlite3_reset(hist);
            for (int b = 0; b < 66; b++)
                fprintf(out, "%c%lld", b ? ',' : '\t', bins[b]);
        }
        fputc('\n', out);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(hist);
}

/* The D lines: each communicator with collectives at this rank; MPI_COMM_WORLD (W0.0)
 * always, as Open MPI writes it (zeros when it had none). */
static void communicator_lines(sqlite3 *db, const struct matrix_query *q, int rank, FILE *out)
{
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "SELECT c.name, c.members, SUM(o2a_count), SUM(o2a_bytes), SUM(a2o_count),"
                       " SUM(a2o_bytes), SUM(a2a_count), SUM(a2a_bytes) FROM communicators c"
                       " LEFT JOIN (monitor_collectives m JOIN monitor_phases p"
                       " ON p.id = m.phase_id AND (?2 IS NULL OR p.name = ?2))"
                       " ON c.id = m.comm_id AND m.rank = ?1"
                       " WHERE m.comm_id IS NOT NULL OR c.name = 'W0.0' GROUP BY c.id"
                       " ORDER BY c.name",
                       -1, &st, NULL);
    sqlite3_bind_int(st, 1, rank);
    if (q->phase)
        sqlite3_bind_text(st, 2, q->phase, -1, SQLITE_STATIC);
    static const char *const kinds[] = {"O2A", "A2O", "A2A"};
    while (sqlite3_step(st) == SQLITE_ROW) {
        fprintf(out, "D\t%s\tprocs: %s\n", (const char *)sqlite3_column_text(st, 0),
                (const char *)sqlite3_column_text(st, 1));
        for (int k = 0; k < 3; k++)
            fprintf(out, "%s\t%d\t%lld bytes\t%lld msgs sent\n", kinds[k], rank,
                    (long long)sqlite3_column_int64(st, 3 + 2 * k),
                    (long long)sqlite3_column_int64(st, 2 + 2 * k));
    }
    sqlite3_finalize(st);
}

int matrix_print_prof(sqlite3 *db, const struct matrix_query *q)
{
    struct matrix m;
    if (matrix_load(db, q, &m) != 0)
        return 2;
    free(m.count);
    for (int rank = 0; rank < m.n; rank++) {
        FILE *out = stdout;
        if (q->output) {
            char path[4096];
            snprintf(path, sizeof path, "%s.%d.prof", q->output, rank);
            if (!(out = fopen(path, "w"))) {
                fprintf(stderr,
                        "mpilens: matrix: -o %s: cannot write %s; choose a writable "
                        "prefix\n",
                        q->output, path);
                return 2;
            }
        }
        fputs("# POINT TO POINT\n", out);
        peer_lines(db, q, rank, "p2p", "E", 1, out);
        fputs("# OSC\n", out);
        peer_lines(db, q, rank, "rma", "S", 0, out);
        peer_lines(db, q, rank, "rma_recv", "R", 0, out);
        fputs("# COLLECTIVES\n", out);
        peer_lines(db, q, rank, "coll", "C", 0, out);
        communicator_lines(db, q, rank, out);
        if (out != stdout && (ferror(out) | (fclose(out) != 0))) {
            fprintf(stderr, "mpilens: matrix: -o %s: writing %s.%d.prof failed (%s)\n", q->output,
                    q->output, rank, strerror(errno));
            return 2;
        }
    }
    if (q->output)
        printf("mpilens: %s.RANK.prof written for %d ranks\n", q->output, m.n);
    return 0;
}
