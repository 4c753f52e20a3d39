/* SPDX-License-Identifier: BSD-3-Clause */
/* collect.c: mpilens-collect, started by `mpilens recover DIR -- LAUNCHER` (and by `mpilens
 * run` after a job that died) with libmpilens preloaded and MPILENS_COLLECT set: an MPI
 * program that does nothing itself. The core's run hooks find the ranks that do not see
 * DIR (node-local disk) and bring what their nodes' copies of DIR hold to it, as at a
 * normal MPI_Finalize (src/core/output_share.c).
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
