/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c: `mpilens report DB`: the communicator-centric profile, read back from the run
 * database. Default view (as mpisee-through's): metadata, overall statistics, then per
 * communicator its operations by size bucket. Filters are bound SQL parameters; the sort
 * order is chosen from a fixed list. Output as text tables, CSV (--csv) or an HTML page
 * with charts (--html FILE, report_html.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "page.h"
#include "report.h"
#include "rundb.h"
#include "rundb_read.h"

static const char usage[] =
    "usage: mpilens report DB [options]\n"
    "\n"
    "Shows the communicator-centric profile of a run (module `profile`): metadata, overall\n"
    "times, then per communicator the calls, maximum and average time and volume of each\n"
    "operation and message-size bucket. DB is a run's mpilens.db or its directory.\n"
    "\n"
    "  --comm NAME         only this communicator (e.g. W0.0, s0.1)\n"
    "  --op NAME           only this operation (Allreduce or MPI_Allreduce)\n"
    "  --rank N            only the data of rank N (calls are then that rank's own)\n"
    "  --kind KIND         p2p, coll, rma or io\n"
    "  --bucket N          only size bucket N (0 = smallest; see the metadata)\n"
    "  --sort KEY          time (default), calls or volume\n"
    "  --top N             the N largest rows over all communicators, as one table\n"
    "  --csv               comma-separated rows for scripts\n"
    "  --html FILE         also write the run's page (docs/page.md): summary, findings,\n"
    "                      efficiency, time per rank and every module's detail; always\n"
    "                      the whole run, whatever the filters\n"
    "  --efficiency        the POP metrics alone: parallel efficiency, load balance,\n"
    "                      communication efficiency (with --csv: metric,value,phase rows)\n"
    "  --waits             the wait states found by `mpilens analyze RUN` (Table 2 shape)\n"
    "  --callsites         the lines of the application that spend the MPI time (mpiP's\n"
    "                      call-site table; with --top N, --rank N, --csv)\n"
    "  -h, --help          this text\n"
    "\n"
    "Columns: CALLS counts calls summed over ranks, a collective once (divided by the\n"
    "communicator's size) and a Sendrecv once per exchange (halved); with --rank, that\n"
    "rank's own. MAX RANK s and AVG RANK s: a rank's total time in these calls, the largest\n"
    "and the average over ranks. LONGEST s: the longest single call. VOLUME: bytes sent,\n"
    "summed over ranks. CSV: the same, plus total_time_s (summed over ranks).\n"
    "Overall: the run is the time from the end of MPI_Init to MPI_Finalize; the MPI time\n"
    "and its share are of the run; MPI_Init and MPI_Finalize are on a line of their own\n"
    "(Init+Finalize), as mpiP counts it. Efficiency: the POP metrics (docs/efficiency.md).\n";

#define fail(...) cli_fail("report", __VA_ARGS__)

static int parse_int(const char *text, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < 0 || v > 1 << 30)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, struct report_query *q)
{
    memset(q, 0, sizeof *q);
    q->rank = q->bucket = q->top = -1;
    q->sort = "time";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--comm") == 0 && v)
            q->comm = v;
        else if (strcmp(a, "--op") == 0 && v)
            q->op = strncmp(v, "MPI_", 4) == 0 ? v + 4 : v;
        else if (strcmp(a, "--rank") == 0 && v) {
            if (parse_int(v, &q->rank))
                return fail("--rank '%s': not a rank number", v);
        } else if (strcmp(a, "--kind") == 0 && v) {
            if (strcmp(v, "p2p") && strcmp(v, "coll") && strcmp(v, "rma") && strcmp(v, "io"))
                return fail("--kind '%s': use p2p, coll, rma or io", v);
            q->kind = v;
        } else if (strcmp(a, "--bucket") == 0 && v) {
            if (parse_int(v, &q->bucket))
                return fail("--bucket '%s': not a bucket number (0 is the smallest)", v);
        } else if (strcmp(a, "--sort") == 0 && v) {
            if (strcmp(v, "time") && strcmp(v, "calls") && strcmp(v, "volume"))
                return fail("--sort '%s': use time, calls or volume", v);
            q->sort = v;
        } else if (strcmp(a, "--top") == 0 && v) {
            if (parse_int(v, &q->top) || q->top == 0)
                return fail("--top '%s': give a positive number of rows", v);
        } else if (strcmp(a, "--html") == 0 && v)
            q->html = v;
        else if (strcmp(a, "--csv") == 0) {
            q->csv = 1;
            takes = 0;
        } else if (strcmp(a, "--efficiency") == 0) {
            q->efficiency = 1;
            takes = 0;
        } else if (strcmp(a, "--waits") == 0) {
            q->waits = 1;
            takes = 0;
        } else if (strcmp(a, "--callsites") == 0) {
            q->callsites = 1;
            takes = 0;
        } else if (a[0] == '-') {
            return fail("unknown or incomplete option '%s'%s; see `mpilens report --help`", a,
                        cli_option_hint(a, usage));
        } else if (!q->db) {
            q->db = a;
            takes = 0;
        } else {
            return fail("more than one database given ('%s'); give one", a);
        }
        i += takes;
    }
    return cli_need_input(q->db != NULL, "report");
}

int cli_report(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    struct report_query q;
    int rc = parse_args(argc, argv, &q);
    if (rc)
        return rc;
    char path[4096];
    sqlite3 *db;
    if (q.callsites) {
        if ((rc = cli_open_db(q.db, "report", "callsites", "call sites", "profile", &db, path,
                              sizeof path)))
            return rc;
        rc = report_print_callsites(db, q.rank, q.top, q.csv, stdout);
        rundb_close(db);
        return rc;
    }
    if (q.waits) {
        if ((rc = cli_open_db(q.db, "report", "waits", "wait-state analysis", "trace", &db, path,
                              sizeof path)))
            return rc;
        rc = report_print_waits(db, q.rank, stdout);
        if (rc == 0 && q.html && report_write_waits_html(db, q.rank, q.html) != 0)
            rc = fail("--html %s: cannot write the file (%s); choose a writable path", q.html,
                      strerror(errno));
        else if (rc == 0 && q.html)
            printf("\nmpilens: HTML report of the wait states in %s\n", q.html);
        rundb_close(db);
        return rc;
    }
    if ((rc = cli_open_db(q.db, "report", "profile", "profile", "profile", &db, path, sizeof path)))
        return rc;
    if (q.efficiency) { /* the POP metrics alone */
        if (q.csv)
            report_print_efficiency_csv(db, stdout);
        else
            report_print_efficiency(db, stdout);
        rundb_close(db);
        return 0;
    }
    struct report_rows rows;
    if (report_query_rows(db, &q, &rows) != 0) {
        fprintf(stderr, "mpilens: report: %s: %s\n", path, rundb_errmsg(db));
        rundb_close(db);
        return 2;
    }
    if (q.csv) {
        report_print_csv(&q, &rows, stdout);
    } else {
        report_print_metadata(db, stdout);
        report_print_overall(db, &q, stdout);
        if (q.rank < 0)
            report_print_efficiency(db, stdout);
        report_print_tables(&q, &rows, stdout);
    }
    rc = 0;
    char run[4096]; /* the run's directory: the database's */
    snprintf(run, sizeof run, "%s", path);
    char *slash = strrchr(run, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(run, sizeof run, ".");
    if (q.html && page_write(db, run, q.html) != 0)
        rc = fail("--html %s: cannot write the file (%s); choose a writable path", q.html,
                  strerror(errno));
    else if (q.html && !q.csv)
        printf("\nmpilens: HTML report in %s\n", q.html);
    report_rows_free(&rows);
    rundb_close(db);
    return rc;
}
