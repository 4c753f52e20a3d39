/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix.c: `mpilens matrix DB`: the monitor's communication matrix read back from the run
 * database: as a terminal table with heat shading (ranks grouped into blocks when they do
 * not fit), CSV, an SVG or HTML heatmap, the per-peer size histograms of one rank, or Open
 * MPI's .prof lines (matrix_output.c writes the formats).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "matrix.h"
#include "rundb.h"
#include "rundb_read.h"

static const char usage[] =
    "usage: mpilens matrix DB [options]\n"
    "\n"
    "Shows who sent how much to whom (module `monitor`), by MPI_COMM_WORLD rank: rows are\n"
    "senders, columns receivers. DB is a run's mpilens.db or its directory.\n"
    "\n"
    "  --kind KIND        p2p (default), coll, rma, io (bytes per rank and file), or all;\n"
    "                     lib_p2p, lib_coll: Open MPI's own matrix (run --ompi-monitoring)\n"
    "  --metric METRIC    bytes (default) or count\n"
    "  --phase NAME       one phase (mpilens_monitor_flush); default: all phases summed\n"
    "  --format FORMAT    text (default), csv, svg, html, or prof (Open MPI's .prof lines)\n"
    "  --histogram RANK   the message-size histograms of RANK toward each peer\n"
    "  -o FILE            write to FILE (for prof: FILE.RANK.prof per rank)\n"
    "  -h, --help         this text\n";

#define fail(...) cli_fail("matrix", __VA_ARGS__)

static int one_of(const char *v, const char *const *choices)
{
    for (; *choices; choices++)
        if (strcmp(v, *choices) == 0)
            return 1;
    return 0;
}

static int parse(int argc, char **argv, struct matrix_query *q)
{
    static const char *const kinds[] = {"p2p", "coll",    "rma",      "io",
                                        "all", "lib_p2p", "lib_coll", NULL};
    static const char *const metrics[] = {"bytes", "count", NULL};
    static const char *const formats[] = {"text", "csv", "svg", "html", "prof", NULL};
    memset(q, 0, sizeof *q);
    q->kind = "p2p";
    q->metric = "bytes";
    q->format = "text";
    q->histogram = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--kind") == 0 && v) {
            if (!one_of(v, kinds))
                return fail("--kind '%s': use p2p, coll, rma, io, all, lib_p2p or lib_coll", v);
            q->kind = argv[++i];
        } else if (strcmp(a, "--metric") == 0 && v) {
            if (!one_of(v, metrics))
                return fail("--metric '%s': use bytes or count", v);
            q->metric = argv[++i];
        } else if (strcmp(a, "--format") == 0 && v) {
            if (!one_of(v, formats))
                return fail("--format '%s': use text, csv, svg, html or prof", v);
            q->format = argv[++i];
        } else if (strcmp(a, "--phase") == 0 && v) {
            q->phase = argv[++i];
        } else if (strcmp(a, "--histogram") == 0 && v) {
            char *end;
            q->histogram = (int)strtol(v, &end, 10);
            if (*end || q->histogram < 0)
                return fail("--histogram '%s': give a rank number", v);
            i++;
        } else if (strcmp(a, "-o") == 0 && v) {
            q->output = argv[++i];
        } else if (a[0] == '-') {
            return fail("unknown or incomplete option '%s'%s; see `mpilens matrix --help`", a,
                        cli_option_hint(a, usage));
        } else if (!q->db) {
            q->db = a;
        } else {
            return fail("more than one database given ('%s'); give one", a);
        }
    }
    return cli_need_input(q->db != NULL, "matrix");
}

int cli_matrix(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    struct matrix_query q;
    int rc = parse(argc, argv, &q);
    if (rc)
        return rc;
    if (q.histogram >= 0 && strcmp(q.format, "text") != 0 && strcmp(q.format, "csv") != 0)
        return fail("--histogram with --format '%s': histograms print as text or csv; give "
                    "--format csv or leave --format out",
                    q.format);
    char path[4096];
    sqlite3 *db;
    if ((rc = cli_open_db(q.db, "matrix", "monitor_matrix", "communication matrix", "monitor", &db,
                          path, sizeof path)))
        return rc;
    if (q.phase && !matrix_phase_exists(db, q.phase)) {
        fprintf(stderr,
                "mpilens: matrix: %s: no phase '%s'; the phases are listed by "
                "mpilens matrix --format csv\n",
                path, q.phase);
        rundb_close(db);
        return 2;
    }
    char kinds[256];
    int nkinds = matrix_kinds(db, kinds, sizeof kinds);
    char listed[300], wanted[64];
    snprintf(listed, sizeof listed, ", %s,", kinds);
    snprintf(wanted, sizeof wanted, ", %s,", q.kind);
    if (strcmp(q.kind, "all") != 0 && !strstr(listed, wanted)) {
        if (nkinds)
            fprintf(stderr,
                    "mpilens: matrix: %s: no %s traffic recorded; it has %s (give --kind %.*s)\n",
                    path, q.kind, kinds, (int)strcspn(kinds, ","), kinds);
        else
            fprintf(stderr,
                    "mpilens: matrix: %s: no traffic of any kind recorded (was the monitor "
                    "started? -m monitor:start=0 waits for the application to start it)\n",
                    path);
        rundb_close(db);
        return 2;
    }
    FILE *out = stdout;
    if (q.output && strcmp(q.format, "prof") != 0 && !(out = fopen(q.output, "w"))) {
        rundb_close(db);
        return fail("-o %s: cannot write the file; choose a writable path", q.output);
    }
    if (q.histogram >= 0)
        rc = matrix_print_histogram(db, &q, out);
    else if (strcmp(q.kind, "io") == 0)
        rc = matrix_print_io(db, &q, out);
    else if (strcmp(q.format, "prof") == 0)
        rc = matrix_print_prof(db, &q);
    else {
        struct matrix m;
        rc = matrix_load(db, &q, &m);
        if (rc == 0) {
            if (strcmp(q.format, "csv") == 0)
                matrix_print_csv(&m, &q, out);
            else if (strcmp(q.format, "svg") == 0)
                matrix_print_svg(&m, &q, out);
            else if (strcmp(q.format, "html") == 0)
                matrix_print_html(&m, &q, out);
            else {
                matrix_print_text(&m, &q, out);
                matrix_print_nodes(db, &m, out);
            }
            free(m.count);
        }
    }
    if (out != stdout && (ferror(out) | (fclose(out) != 0))) {
        rc = fail("-o %s: writing the file failed (%s); nothing was kept", q.output,
                  strerror(errno));
        unlink(q.output);
    } else if (out != stdout)
        printf("mpilens: %s written\n", q.output);
    rundb_close(db);
    return rc;
}
