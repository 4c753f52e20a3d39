/* SPDX-License-Identifier: BSD-3-Clause */
/* report.h: the pieces of `mpilens report`: the query (report_query.c), text and CSV
 * output (report_text.c) and the HTML page (report_html.c).
 */
#ifndef LENS_REPORT_H
#define LENS_REPORT_H

#include <sqlite3.h>

#include "pop_run.h"
#include "rundb_read.h"
#include <stdio.h>

struct report_query {
    const char *db, *comm, *op, *kind, *sort, *html;
    int rank, bucket, top, csv, waits, callsites, efficiency;
};

/* The cells shown: (communicator, operation, bucket) aggregated over the selected ranks,
 * as src/db reads them (rundb_read.h). */
struct report_rows {
    struct rundb_profile_cell *rows;
    int count;
};

/* The cells Q selects (rundb_profile_cells); 0, or -1. */
int report_query_rows(sqlite3 *db, const struct report_query *q, struct report_rows *out);
void report_rows_free(struct report_rows *rows);
void report_print_metadata(sqlite3 *db, FILE *out);
void report_print_overall(sqlite3 *db, const struct report_query *q, FILE *out);
/* report_efficiency.c: the POP metrics of the run (src/pop/pop_run.h computes them). */
void report_print_efficiency(sqlite3 *db, FILE *out);
/* The efficiencies of each phase (MPI_Pcontrol user region; from `mpilens analyze`): *OUT
 * (malloc'ed, in the order of the trace's phases); their number, or -1. */
struct report_phase {
    char name[128];
    double parallel, load_balance, communication, length; /* length: the longest rank's, s */
    double serialization, transfer; /* on analyze's ideal network: SerE x TE = CommE */
    int ranks;
};
int report_phase_efficiencies(sqlite3 *db, struct report_phase **out);
/* The MPI time of each (communicator, operation), summed over ranks and size buckets,
 * Init and Finalize left out, the largest first: *OUT (malloc'ed) and their sum in *TOTAL;
 * their number, or -1. */
struct report_pair {
    char comm[64], op[48], kind[8];
    int size;
    double time;
};
int report_mpi_pairs(sqlite3 *db, struct report_pair **out, double *total);
/* The (up to) three call sites with the most MPI time, Init and Finalize left out, as
 * "file.c:12 Barrier 80 %"; their number. */
int report_top_sites(sqlite3 *db, char text[3][96]);
void report_print_efficiency_csv(sqlite3 *db, FILE *out);
void report_print_tables(const struct report_query *q, const struct report_rows *rows, FILE *out);
void report_print_csv(const struct report_query *q, const struct report_rows *rows, FILE *out);
/* The wait-state metrics as a tree (report_waits.c, Scalasca's hierarchy): each metric's
 * name, depth (0: the total time) and the patterns it sums ('|'-separated; NULL: the
 * total), parents before their children. */
struct report_wait_metric {
    const char *name;
    int depth;
    const char *patterns;
};
extern const struct report_wait_metric report_wait_tree[];
extern const int report_wait_tree_size;
/* The wait-state table (report_waits.c); rank -1 for all. */
int report_print_waits(sqlite3 *db, int rank, FILE *out);
/* `report --callsites` (report_sites.c): the call sites with the most MPI time (TOP, or
 * 20), summed over ranks or of RANK (-1: all); CSV for scripts. 0, or 2. */
int report_print_callsites(sqlite3 *db, int rank, int top, int csv, FILE *out);
/* The same as an HTML page with a chart of the waiting time per pattern; 0 or -1. */
int report_write_waits_html(sqlite3 *db, int rank, const char *path);
/* A call site's FILE as shown (report_sites.c): its last component (a path is long; the
 * line number says the rest), "?" without debug information. */
const char *report_file_name(const char *file);
/* "0-128", "129-1K", "32M+" */
void report_bucket_label(long long lo, long long hi, char *out, size_t len);
/* "12 B", "3.2 KiB" ... */
void report_bytes(long long bytes, char *out, size_t len);

#endif
