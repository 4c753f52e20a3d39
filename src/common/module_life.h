/* module_life.h: the MPI_Abort, MPI_Init and MPI_Init_thread wrappers of a module that
 * saves its snapshot at MPI_Abort and starts once the library's init succeeded:
 * LENS_MODULE_LIFE(STARTED) defines them, STARTED(provided) called with the thread level
 * the library gives (MPI_THREAD_SINGLE for MPI_Init). A module whose start needs more (the
 * profile times MPI_Init itself) writes its own.
 */
#ifndef LENS_MODULE_LIFE_H
#define LENS_MODULE_LIFE_H

#include <mpi.h>

#include "lens_down.h"
#include "mpilens_snapshot.h"

#define LENS_MODULE_LIFE(STARTED)                                                                  \
    int MPI_Abort(MPI_Comm comm, int code)                                                         \
    {                                                                                              \
        mpilens_snapshot_save("MPI_Abort");                                                        \
        return MPILENS_DOWN(Abort)(comm, code);                                                    \
    }                                                                                              \
    int MPI_Init(int *argc, char ***argv)                                                          \
    {                                                                                              \
        int rc = MPILENS_DOWN(Init)(argc, argv);                                                   \
        if (rc == MPI_SUCCESS)                                                                     \
            STARTED(MPI_THREAD_SINGLE);                                                            \
        return rc;                                                                                 \
    }                                                                                              \
    int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)                      \
    {                                                                                              \
        int rc = MPILENS_DOWN(Init_thread)(argc, argv, required, provided);                        \
        if (rc == MPI_SUCCESS)                                                                     \
            STARTED(*provided);                                                                    \
        return rc;                                                                                 \
    }

#endif
