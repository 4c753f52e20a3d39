/* SPDX-License-Identifier: BSD-3-Clause */
/* page.h: the run's page (`mpilens report RUN --html FILE`, and RUN/report.html written by
 * `mpilens run`): one self-contained HTML file, summary first, then the detail each module
 * recorded (docs/page.md). page.c writes its sections, page_svg.c draws its pictures,
 * page_findings.c picks the three largest findings.
 */
#ifndef LENS_CLI_PAGE_H
#define LENS_CLI_PAGE_H

#include <sqlite3.h>
#include <stdio.h>

#include "report.h"

/* Writes RUN's page to PATH (DB: RUN's database). 0, or -1 (errno) with no page left. */
int page_write(sqlite3 *db, const char *run, const char *path);

/* RUN/report.html from RUN/mpilens.db, at the end of `mpilens run` (its name into PATH):
 * 0, 1 when the run has no database, -1 (errno) when the page could not be written. */
int page_write_run(const char *run, char *path, size_t len);

/* Where each rank's time went (profile): useful (outside MPI), MPI (Init and Finalize left
 * out) and MPI_Init + MPI_Finalize, seconds. */
struct page_rank_time {
    double useful, mpi, startup;
};

/* ---- pictures (page_svg.c): inline SVG that scales to the page's width ---- */

/* One stacked bar of the run's time summed over the N ranks of RANKS, with its legend. */
void page_run_bar(FILE *f, const struct page_rank_time *ranks, int n);
/* One stacked bar per rank on one scale, or per group of ranks beyond 64 (their average,
 * the group's extremes of useful time in the title). */
void page_rank_bars(FILE *f, const struct page_rank_time *ranks, int n);
/* Horizontal bars, largest first (25 at most): LABELS[i] with VALUES[i] UNIT. */
void page_bar_chart(FILE *f, char (*labels)[128], const double *values, int n, const char *unit);
/* Calls per message-size bucket, from the profile's cells. */
void page_size_histogram(FILE *f, const struct report_rows *rows);
#define PAGE_MAX_ROWS 64 /* bars and heatmap rows beyond which ranks are grouped */
/* The monitor's matrix as the page draws it: N ranks in groups of BLOCK consecutive ranks
 * (1 up to 64 ranks), COLS x COLS cells (row: sender) of bytes and messages, BETWEEN[c] set
 * where some of cell c's traffic crosses hosts (HOSTS > 1); KIND: "p2p" or "all". */
struct page_matrix {
    int n, block, cols, hosts;
    unsigned long long *bytes, *messages, within, between_bytes;
    char *between;
    const char *kind;
};
/* The heatmap of PM: each cell's title has its exact bytes and messages; cells between
 * hosts outlined. */
void page_heatmap(FILE *f, const struct page_matrix *pm);

/* ---- findings (page_findings.c) ---- */

/* What the page knows of the run when it picks its findings. */
struct page_facts {
    const struct page_rank_time *ranks; /* N of them (profile), or NULL */
    int n, hosts;
    unsigned long long within, between; /* bytes within and between hosts (monitor) */
    const struct pop_factors *eff;      /* the run's efficiencies (profile), or NULL */
};
/* The three largest findings of the run, each with its number, where it is and a sentence
 * on what to look at, as a list, largest first (by the seconds over ranks each costs). */
void page_findings(FILE *f, sqlite3 *db, const struct page_facts *facts);

/* ---- the page being written (page.c: the summary; page_detail.c: the detail) ---- */

/* What page_write read once; the sections write from it. */
struct page {
    FILE *f;
    sqlite3 *db;
    const char *run, *path;
    struct page_rank_time *ranks; /* N of them (profile), or NULL */
    int n;
    struct pop_factors eff; /* valid when has_eff (pop_run_factors) */
    int has_eff;
    struct report_rows cells; /* the profile's cells (none without a profile) */
    struct page_matrix m;     /* the monitor's matrix, grouped; m.n = 0 without one */
    int *host_of;             /* each rank's host when there are several, or NULL */
    double site_time;         /* MPI time recorded at call sites, summed over ranks */
};
/* S (NULL: nothing) escaped on P's page. */
void page_text(struct page *p, const char *s);
/* The detail sections (page_detail.c); page_write calls each only when the run has its
 * data (its table of sections), but for the sizes, which decide for themselves. */
void page_communicators(struct page *p);
void page_sizes(struct page *p);
void page_callsites(struct page *p);
void page_matrix_section(struct page *p);
void page_waits(struct page *p);
void page_trace(struct page *p);
/* RUN's trace archive (the anchor file), which the trace section names. */
void page_trace_anchor(const char *run, char *out, size_t len);

#endif
