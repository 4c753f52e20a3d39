/* SPDX-License-Identifier: BSD-3-Clause */
/* launch_check.c: the first stumble under a batch system, explained. When srun's --mpi
 * plugin does not match the MPI library, MPICH and Open MPI 5 start every task as a job of
 * its own (each alone in MPI_COMM_WORLD, each succeeding) and Open MPI 4 aborts in MPI_Init.
 * Before MPI_Init we look for the Open MPI 4 case (srun gave PMI-1/2, no PMIx); after it, for a
 * world of one process where the launcher started several. One line, from the launcher's
 * task 0 only, naming the plugin to use.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "core.h"

#if defined(OPEN_MPI)
#define LIBRARY_NAME "Open MPI"
#define RIGHT_PLUGIN "pmix"
#elif defined(MPICH_VERSION)
#define LIBRARY_NAME "MPICH"
#define RIGHT_PLUGIN "pmi2"
#else
#define LIBRARY_NAME "this MPI library"
#define RIGHT_PLUGIN "pmix or pmi2"
#endif

static long env_number(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : -1;
}

/* The launcher's task 0 (srun's, or Hydra's and Open MPI's ranks), or a lone process. */
static int first_task(void)
{
    static const char *const ranks[] = {"SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++)
        if (env_number(ranks[i]) >= 0)
            return env_number(ranks[i]) == 0;
    return 1;
}

void lens_launch_check_before_init(void)
{
/* Open MPI 5 starts each task as a singleton: said after MPI_Init, as for MPICH */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
    if (getenv("SLURM_STEP_ID") && getenv("PMI_FD") && !getenv("PMIX_RANK") && first_task())
        fprintf(stderr,
                "mpilens: srun gave this Open MPI program PMI-2 (--mpi=pmi2), which it cannot "
                "use (it aborts in MPI_Init): run it with srun --mpi=" RIGHT_PLUGIN "\n");
#endif
}

void lens_launch_check_after_init(int size)
{
    long started = env_number("SLURM_STEP_NUM_TASKS");
    const char *launcher = "srun";
    if (started < 0) {
        started = env_number("PMI_SIZE"); /* Hydra (mpiexec) or srun --mpi=pmi2 */
        launcher = "mpiexec";
    }
    if (size != 1 || started <= 1 || !first_task())
        return;
    if (launcher[0] == 's')
        fprintf(stderr,
                "mpilens: srun started %ld tasks but each is alone in MPI_COMM_WORLD (%ld "
                "separate 1-process jobs): srun's --mpi plugin does not match " LIBRARY_NAME
                "; run srun --mpi=" RIGHT_PLUGIN " (srun --mpi=list shows what Slurm has)\n",
                started, started);
    else
        fprintf(stderr,
                "mpilens: the launcher started %ld processes but each is alone in "
                "MPI_COMM_WORLD: it is not " LIBRARY_NAME "'s own; start the job with " LIBRARY_NAME
                "'s mpirun/mpiexec\n",
                started);
}
