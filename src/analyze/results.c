/* SPDX-License-Identifier: BSD-3-Clause */
/* results.c: rank 0 gathers every rank's nonzero waits (and wait intervals) and writes them
 * into the run database (tables waits, wait_intervals; docs/database.md).
 */
#include <mpi.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "rundb_write.h"

const char *const pattern_names[PATTERNS] = {"Late Sender",    "Late Receiver",
                                             "Wait at N x N",  "Wait at Barrier",
                                             "Late Broadcast", "Early Reduce",
                                             "Early Scan",     "Wait at Fence",
                                             "Early Fence",    "Late Post",
                                             "Early Transfer", "Early Wait",
                                             "Late Complete",  "MPI"};
/* One nonzero severity, as it travels to rank 0. */
struct wait_entry {
    int32_t pattern, region, phase;
    double seconds;
};

/* Gathers every rank's BYTES of MINE on rank 0: returns them there (malloc'ed), with
 * per-rank byte counts and offsets in *counts and *displs; NULL elsewhere. */
static void *gather_bytes(struct analysis *A, const void *mine, size_t bytes, int **counts,
                          int **displs)
{
    int n = (int)bytes, total = 0;
    *counts = A->rank == 0 ? calloc(A->size, sizeof **counts) : NULL;
    *displs = A->rank == 0 ? calloc(A->size, sizeof **displs) : NULL;
    MPI_Gather(&n, 1, MPI_INT, *counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; A->rank == 0 && r < A->size; r++) {
        (*displs)[r] = total;
        total += (*counts)[r];
    }
    char *all = A->rank == 0 ? malloc((size_t)total + 1) : NULL;
    MPI_Gatherv(mine, n, MPI_BYTE, all, *counts, *displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    return all;
}

static int write_intervals(struct analysis *A, struct rundb *run, const struct wait_interval *all,
                           const int *counts, const int *displs)
{
    int rc = 0;
    for (int r = 0; r < A->size && rc == 0; r++)
        for (int i = 0; i < counts[r] / (int)sizeof *all; i++) {
            const struct wait_interval *w = &all[displs[r] / (int)sizeof *all + i];
            rc |= rundb_put_wait_interval(run, r, pattern_names[w->pattern],
                                          A->regions[w->region].name, (int64_t)w->from,
                                          (int64_t)w->until);
        }
    return rc;
}

/* Rank 0 gathers every rank's nonzero severities, its wait intervals, the traced time and
 * its time in each phase, and writes them into the run database: tables waits,
 * wait_intervals, wait_times and phase_times. */
int write_results(struct analysis *A, const char *run, double traced, const uint64_t ideal[3])
{
    struct wait_entry *mine = NULL;
    int n = 0;
    for (int p = 0; p < PATTERNS; p++)
        for (uint32_t g = 0; g <= A->nregions; g++)
            for (int ph = 0; ph < A->nphases; ph++)
                if (SEVERITY(A, p, g, ph) > 0) {
                    mine = realloc(mine, (n + 1) * sizeof *mine);
                    mine[n++] = (struct wait_entry){p, (int32_t)g, ph, SEVERITY(A, p, g, ph)};
                }
    int *counts, *displs, *icounts, *idispls;
    double *times = A->rank == 0 ? calloc(A->size, sizeof *times) : NULL;
    struct wait_entry *all = gather_bytes(A, mine, n * sizeof *mine, &counts, &displs);
    struct wait_interval *spans =
        gather_bytes(A, A->intervals, A->nintervals * sizeof *A->intervals, &icounts, &idispls);
    MPI_Gather(&traced, 1, MPI_DOUBLE, times, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* each phase's times per rank (every rank has the same phases: global definitions) */
    int per_rank = 3 * A->nphases;
    double *phase_times =
        A->rank == 0 ? calloc((size_t)A->size * per_rank, sizeof *phase_times) : NULL;
    MPI_Gather(A->phase_seconds, per_rank, MPI_DOUBLE, phase_times, per_rank, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    free(mine);
    if (A->rank != 0)
        return 0;
    struct rundb db;
    char err[1024];
    if (rundb_begin(&db, run, err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: analyze: %s\n", err);
        return 2;
    }
    int rc = rundb_waits_create(&db);
    if (rc == 0)
        rc = write_intervals(A, &db, spans, icounts, idispls);
    for (int r = 0; r < A->size && rc == 0; r++)
        for (int i = 0; i < counts[r] / (int)sizeof *all; i++) {
            const struct wait_entry *w = &all[displs[r] / (int)sizeof *all + i];
            rc |= rundb_put_wait(&db, pattern_names[w->pattern], A->regions[w->region].name, r,
                                 w->seconds,
                                 w->phase ? A->regions[A->phase_region[w->phase]].name : NULL);
        }
    for (int r = 0; r < A->size && rc == 0; r++)
        rc |= rundb_put_wait_time(&db, r, times[r]);
    for (int ph = 1; phase_times && ph < A->nphases && rc == 0; ph++)
        for (int r = 0; r < A->size && rc == 0; r++) {
            const double *of = &phase_times[(size_t)r * per_rank];
            rc |= rundb_put_phase_time(&db, A->regions[A->phase_region[ph]].name, r, of[ph],
                                       of[A->nphases + ph], of[2 * A->nphases + ph]);
        }
    if (rc == 0 && ideal[1] > 0 && ideal[2] > 0) { /* serialization x transfer = comm. eff. */
        char value[32];
        snprintf(value, sizeof value, "%.6f", (double)ideal[0] / (double)ideal[1]);
        rc |= rundb_put_metadata(&db, "Serialization efficiency", value);
        snprintf(value, sizeof value, "%.6f", (double)ideal[1] / (double)ideal[2]);
        rc |= rundb_put_metadata(&db, "Transfer efficiency", value);
    }
    if (rundb_finish(&db, rc != 0, "the wait states", err, sizeof err) != 0) {
        fprintf(stderr, "mpilens: analyze: %s\n", err);
        return 2;
    }
    return 0;
}

/* This rank's event reader (with its clock offsets read from its definitions), or NULL. */
/* This rank's event reader, after its local definitions (clock offsets) are read; NULL on
 * failure, with *defs_bad set and *defs_read records read if the definitions failed. */