/* SPDX-License-Identifier: BSD-3-Clause */
/* diff.h: the pieces of `mpilens diff` (docs/diff.md): each run read into values keyed so
 * that they match across reruns (diff_load.c), the values of the two sides grouped into
 * rows and judged against the run-to-run spread (diff_judge.c), then shown as text or CSV
 * (diff_text.c) or an HTML page (diff_html.c), and checked against --fail-if conditions
 * (diff_gate.c).
 */
#ifndef LENS_DIFF_H
#define LENS_DIFF_H

#include <stdio.h>

enum diff_section {
    DIFF_OVERALL,
    DIFF_PROFILE,
    DIFF_SITES,
    DIFF_MATRIX,
    DIFF_WAITS,
    DIFF_SECTIONS
};

/* How a row's difference is judged (diff_judge.c). */
enum diff_verdict {
    DIFF_CHANGED,  /* the sides' ranges apart by more than the spread, and material */
    DIFF_NOISE,    /* within the spread, or too small to matter */
    DIFF_UNJUDGED, /* one run on a side: the spread is unknown */
    DIFF_SAME,     /* exactly equal in every run */
};

/* One run, as read. */
struct diff_run {
    char path[4200];    /* its database */
    char program[256];  /* the basename of its command's program */
    char command[1024]; /* its command line */
    char incomplete[512];
    int processes, has_profile, has_matrix, has_waits, has_sites;
};

/* One value of one run: WHAT names it across runs (its matching key), LABEL the columns
 * shown; VALUE is in seconds (profile, call sites, waits), bytes (matrix) or the overall
 * row's unit. */
struct diff_entry {
    int section, run;
    char what[320];
    char label[3][128];
    char unit[8];
    double value, count;
};

/* One matched thing: its value in every run (0 where a run lacks it), judged. */
struct diff_row {
    int section;
    char what[320], label[3][128], unit[8];
    double *values, *counts; /* runs of side A, then of side B */
    int in_a, in_b;          /* runs of each side that have it */
    double mean_a, mean_b, delta, spread, gap, count_a, count_b;
    enum diff_verdict verdict;
};

struct diff {
    struct diff_run *runs;
    int na, nb; /* runs[0 .. na-1]: side A; runs[na .. na+nb-1]: side B */
    int same_ranks;
    double min_share;        /* materiality: a share of the larger side's MPI time (or bytes) */
    double mpi_a, mpi_b;     /* each side's mean MPI time (ranks summed, Init/Finalize out) */
    double bytes_a, bytes_b; /* each side's mean matrix bytes */
    struct diff_entry *entries;
    int nentries, capacity;
    struct diff_row *rows; /* every section, each sorted by |delta|, largest first */
    int nrows;
};

/* ---- diff_load.c ---- */
/* Opens run PATH (a directory or its database) as run number RUN of D and reads what it
 * is (program, ranks, what it holds). 0, or 2 after one line on stderr. */
int diff_open_run(struct diff *d, int run, const char *path);
/* Reads run RUN's values into D's entries (after every run was opened: matching depends
 * on whether the runs have as many ranks). 0, or 2 after one line on stderr. */
int diff_read_run(struct diff *d, int run);
/* Adds one entry (diff_load.c and the overall rows); 0, or -1 out of memory. */
int diff_add(struct diff *d, int section, int run, const char *what, const char *l0, const char *l1,
             const char *l2, const char *unit, double value, double count);

/* ---- diff_judge.c ---- */
/* Groups the entries into rows and judges each. 0, or -1 out of memory. */
int diff_judge(struct diff *d);
const char *diff_verdict_name(enum diff_verdict v);
/* "appeared", "vanished" or "" for ROW. */
const char *diff_presence(const struct diff *d, const struct diff_row *row);
/* The row of SECTION whose WHAT is WHAT, or NULL. */
const struct diff_row *diff_find(const struct diff *d, int section, const char *what);
void diff_free(struct diff *d);

/* ---- diff_text.c ---- */
void diff_print_text(const struct diff *d, int top, FILE *out);
void diff_print_csv(const struct diff *d, FILE *out);
/* "1.234 s", "12.0 %", "3.2 KiB" for VALUE in UNIT. */
void diff_format(double value, const char *unit, int sign, char *out, size_t len);

/* ---- diff_html.c ---- */
/* The page with its charts (the largest changes as bars, the matrix's B - A as a heatmap).
 * 0, or -1 (errno). */
int diff_write_html(const struct diff *d, int top, const char *path);

/* ---- diff_gate.c ---- */
/* Checks COND ("mpi_time>+5%"); 0, or 2 after one line on stderr naming the grammar. */
int diff_gate_parse(const char *cond);
/* 1 (after one line per condition on stderr) if any condition holds for a real change. */
int diff_gate_check(const struct diff *d, char **conds, int nconds);

#endif
