/* SPDX-License-Identifier: BSD-3-Clause */
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
#include "rundb_read.h"

struct peers {
    sqlite3 *db;
    const struct matrix_query *q;
    int rank, with_histogram;
    const char *tag;
    FILE *out;
};

static void peer_line(int dst, long long bytes, long long messages, void *ctx)
{
    struct peers *p = ctx;
    fprintf(p->out, "%s\t%d\t%d\t%lld bytes\t%lld msgs sent", p->tag, p->rank, dst, bytes,
            messages);
    if (p->with_histogram) {
        long long bins[66];
        rundb_histogram_bins(p->db, p->rank, dst, p->q->phase, bins);
        for (int b = 0; b < 66; b++)
            fprintf(p->out, "%c%lld", b ? ',' : '\t', bins[b]);
    }
    fputc('\n', p->out);
}

static void peer_lines(sqlite3 *db, const struct matrix_query *q, int rank, const char *kind,
                       const char *tag, int with_histogram, FILE *out)
{
    struct peers p = {db, q, rank, with_histogram, tag, out};
    rundb_matrix_peers(db, rank, kind, q->phase, peer_line, &p);
}

struct comm_lines {
    int rank;
    FILE *out;
};

static void communicator_line(const char *name, const char *members, const long long v[6],
                              void *ctx)
{
    static const char *const kinds[] = {"O2A", "A2O", "A2A"};
    struct comm_lines *c = ctx;
    fprintf(c->out, "D\t%s\tprocs: %s\n", name, members);
    for (int k = 0; k < 3; k++)
        fprintf(c->out, "%s\t%d\t%lld bytes\t%lld msgs sent\n", kinds[k], c->rank, v[1 + 2 * k],
                v[2 * k]);
}

/* The D lines: each communicator with collectives at this rank; MPI_COMM_WORLD (W0.0)
 * always, as Open MPI writes it (zeros when it had none). */
static void communicator_lines(sqlite3 *db, const struct matrix_query *q, int rank, FILE *out)
{
    struct comm_lines c = {rank, out};
    rundb_collectives_of(db, rank, q->phase, communicator_line, &c);
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
