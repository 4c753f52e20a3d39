/* slow_transfer.c: a test layer that makes one-sided transfers block, as an MPI whose
 * MPI_Put waits for the target's exposure epoch does (none of the MPIs here does: Open
 * MPI's osc pt2pt and MPICH queue a transfer issued before the post). Stacked under the
 * trace module (-m trace,slow_transfer), it holds every MPI_Put for delay_ms (module
 * argument, default 80) before passing it on, so a post that arrives meanwhile falls
 * inside the recorded transfer: the Early Transfer wait state of the analysis.
 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpilens.h"

static useconds_t delay_us = 80000;

int mpilens_module_init(const struct mpilens_module_args *args)
{
    const char *ms = mpilens_module_arg(args, "delay_ms", NULL);
    if (ms)
        delay_us = (useconds_t)atoi(ms) * 1000;
    return 0;
}

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
    usleep(delay_us);
    return PMPI_Put(obuf, ocount, otype, target, disp, tcount, ttype, win);
}
/* SPDX-License-Identifier: BSD-3-Clause */
