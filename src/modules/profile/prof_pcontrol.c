/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_pcontrol.c: MPI_Pcontrol's levels in the profile, as mpiP reads them
 * (pcontrol_levels.h): 0 stops recording (the wrappers pass straight through), 1 resumes,
 * 2 resets every count (and starts the net execution time again), 3 writes an
 * intermediate result, 4 writes and resets. The module argument pcontrol=0 ignores them.
 */
#include "pcontrol_levels.h"
#include "prof.h"

int prof_pcontrol_levels = 1;
int prof_started;
static int keys_when_on;

static void stop(void)
{
    if (!prof_on)
        return;
    prof_fold_all();
    prof_last_forget(); /* no keyed call may count while stopped */
    keys_when_on = prof_keys_on;
    prof_keys_on = 0;
    prof_on = 0;
}

static void resume(void)
{
    if (prof_on)
        return;
    prof_keys_on = keys_when_on;
    prof_on = 1;
}

static void reset(void)
{
    prof_fold_all();
    for (struct lens_comm *c = lens_comm_all(); c; c = c->next) {
        struct prof_rows *data = atomic_load(&c->payload);
        for (int op = 0; data && op < prof_op_count; op++) {
            struct prof_cell *row = atomic_load(&data->rows[op]);
            if (row)
                memset(row, 0, prof_nbuckets * sizeof *row);
        }
    }
    prof_sites_reset();
    prof_mpi_ticks = 0;
    prof_start_ticks = prof_now();
}

int MPI_Pcontrol(const int level, ...)
{
    static const struct lens_pcontrol_ops ops = {stop, resume, reset};
    if (prof_started && prof_pcontrol_levels)
        lens_pcontrol("profile", level, &ops);
    return MPILENS_DOWN(Pcontrol)(level);
}
