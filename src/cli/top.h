/* SPDX-License-Identifier: BSD-3-Clause */
/* top.h: the pieces of `mpilens top` (docs/top.md): a sample of a running job taken from
 * its ranks' periodic snapshots (top_sample.c), the difference of two samples, and the
 * views of it (top_view.c: the terminal screen and one JSON line per interval).
 */
#ifndef LENS_TOP_H
#define LENS_TOP_H

#include <stdio.h>

enum top_state { TOP_NOT_YET, TOP_RUNNING, TOP_ENDED, TOP_STOPPED };

struct top_rank {
    enum top_state state;
    char how[64];         /* the snapshot's trailer: "snapshot", "MPI_Finalize", "signal 9" */
    double exec, mpi;     /* seconds so far from MPI_Init, in MPI (Init/Finalize left out) */
    double run;           /* seconds so far from the end of MPI_Init */
    double d_exec, d_mpi; /* in the last interval */
};

/* One (communicator, operation) of the profile, summed over ranks. */
struct top_op {
    char comm[64], op[48];
    double time, d_time;
    long long calls, d_calls, volume, d_volume;
};

struct top_cell {
    int src, dst;
    long long bytes, d_bytes;
};

struct top_sample {
    double at;         /* seconds since the view started */
    int nranks, ended; /* ended: the job is over, the figures are its final ones */
    struct top_rank *ranks;
    struct top_op *ops;
    int nops;
    struct top_cell *cells;
    int ncells;
    long long bytes; /* so far: the profile's volume, or the matrix's bytes */
    long long d_bytes;
    double interval;       /* seconds since the previous sample */
    long long trace_bytes; /* bytes of event logs the trace module wrote so far (-1: none) */
    char program[256];
};

/* Takes a sample of the run in DIR into S (the previous sample in PREV, or NULL), using
 * CACHE (a directory of the view's own) to keep each rank's last snapshot. 0, or -1 with
 * one line in ERR. */
int top_sample_take(const char *dir, const char *cache, const struct top_sample *prev,
                    struct top_sample *s, char *err, size_t errlen);
void top_sample_free(struct top_sample *s);

/* Sort keys of the operations' table. */
enum top_sort { TOP_BY_TIME, TOP_BY_CALLS, TOP_BY_BYTES };

/* The screen, ROWS x COLS, drawn over the last one (no clearing: no flicker). */
void top_draw(const struct top_sample *s, const char *dir, enum top_sort sort, int paused, int rows,
              int cols, FILE *out);
/* One JSON line for S. */
void top_json(const struct top_sample *s, FILE *out);

#endif
