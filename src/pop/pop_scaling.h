/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_scaling.h: the POP scaling table (docs/efficiency.md, "Across runs"): one column per
 * rank count, rows speedup, global efficiency, parallel efficiency, load balance,
 * communication efficiency, serialization, transfer and computation scalability, against
 * a reference column (the smallest, or one chosen). Strong scaling compares total useful
 * time, weak scaling useful time per rank. A column is one run (pop_run.h) or, from the
 * site store, the median of one application's jobs at that rank count.
 */
#ifndef LENS_POP_SCALING_H
#define LENS_POP_SCALING_H

#include <stdio.h>

#include "pop_run.h"

struct pop_point {
    int ranks;
    double run, sum_useful; /* T and the useful time summed over ranks, seconds */
    double load_balance, communication, parallel;
    double serialization, transfer;     /* -1: not analyzed */
    int jobs;                           /* the site's jobs at this rank count; 0: one run */
    double parallel_low, parallel_high; /* the site's spread of parallel efficiency */
    char source[1024];                  /* the run's directory, or a description */
    char page[1100];                    /* its page (DIR/report.html) when there, or "" */
};

enum pop_metric {
    POP_SPEEDUP,
    POP_GLOBAL,
    POP_PARALLEL,
    POP_LOAD_BALANCE,
    POP_COMMUNICATION,
    POP_SERIALIZATION,
    POP_TRANSFER,
    POP_COMPUTATION,
    POP_METRICS
};

struct pop_table {
    struct pop_point *points; /* sorted by ranks; owned by the caller */
    int n, ref, weak;
    double *value[POP_METRICS]; /* value[m][i]: column i; -1 where there is none */
    char program[1024];         /* what ran, for the heading */
    char counters[256];         /* why there are no instruction or IPC rows */
};

/* P's figures from one run's factors (its source and page left as they are). */
void pop_point_of_run(struct pop_point *p, const struct pop_factors *f);

/* The metric's CSV name (as `report --efficiency --csv`) and its heading in the table. */
const char *pop_metric_name(enum pop_metric m);
const char *pop_metric_title(enum pop_metric m);

/* Sorts POINTS by ranks and fills T. REF_RANKS: the reference column's rank count (0: the
 * smallest). 0, or -1 with ERR (no points, two at one rank count, no such reference). */
int pop_scaling_table(struct pop_point *points, int n, int ref_ranks, int weak, struct pop_table *t,
                      char *err, size_t errlen);
void pop_scaling_free(struct pop_table *t);

/* The table as text that fits 80 columns (blocks of at most 7 rank counts), with what the
 * values mean (>= 0.8 good) and which factor falls first; as `metric,ranks,value` rows;
 * as one JSON object. */
void pop_print_text(const struct pop_table *t, FILE *out);
void pop_print_csv(const struct pop_table *t, FILE *out);
void pop_print_json(const struct pop_table *t, FILE *out);
/* The page: the efficiencies against ranks as lines, the table coloured, each run linked
 * to its own page. 0, or -1 (errno) with no page left. */
int pop_write_page(const struct pop_table *t, const char *path);

#endif
