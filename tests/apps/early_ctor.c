/* early_ctor.c: a library whose constructor calls MPI before libmpilens's own constructor
 * has run (glibc runs the constructors of a program's libraries before those of preloaded
 * ones): the calls must boot the core and reach the MPI library (dispatch.h,
 * lens_preboot). Only functions legal before MPI_Init. */
#include <mpi.h>
#include <stdio.h>

__attribute__((constructor)) static void call_mpi_early(void)
{
    int initialized = -1, version = 0, subversion = 0;
    int rc = MPI_Initialized(&initialized);
    int rc2 = PMPI_Get_version(&version, &subversion);
    printf("early: rc=%d initialized=%d version_ok=%d\n", rc | rc2, initialized, version >= 3);
    fflush(stdout);
}
/* SPDX-License-Identifier: BSD-3-Clause */
