/* SPDX-License-Identifier: BSD-3-Clause */
/* module_life.h: the MPI_Abort, MPI_Init and MPI_Init_thread wrappers of a module that
 * saves its snapshot at MPI_Abort and starts once the library's init succeeded:
 * LENS_MODULE_LIFE(STARTED) defines them, STARTED(provided) called with the thread level
 * the library gives (MPI_THREAD_SINGLE for MPI_Init); lens_life_init_thread is the module's
 * own MPI_Init_thread, for LENS_SESSION_LIFE. A module whose start needs more (the profile
 * times MPI_Init itself) writes its own.
 */
#ifndef LENS_MODULE_LIFE_H
#define LENS_MODULE_LIFE_H

#include <mpi.h>

#include "lens_down.h"
#include "mpilens.h"
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
    static int lens_life_init_thread(int *argc, char ***argv, int required, int *provided)         \
    {                                                                                              \
        int rc = MPILENS_DOWN(Init_thread)(argc, argv, required, provided);                        \
        if (rc == MPI_SUCCESS)                                                                     \
            STARTED(*provided);                                                                    \
        return rc;                                                                                 \
    }                                                                                              \
    int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)                      \
    {                                                                                              \
        return lens_life_init_thread(argc, argv, required, provided);                              \
    }

/* LENS_SESSION_LIFE(INIT_THREAD, FINALIZE): a module's MPI_Session_init and
 * MPI_Session_finalize (MPI 4), for programs that use sessions only: the first module to see
 * the first session, while MPI's world model is not initialized, starts it through
 * INIT_THREAD (its own MPI_Init_thread wrapper: the modules below it start too) at the
 * thread level the session's info asks ("thread_level", else MPI_THREAD_SINGLE), and ends it
 * through FINALIZE (its own MPI_Finalize: results written) once the last session is
 * finalized (include/mpilens.h, mpilens_session_claim). */
#ifdef MPILENS_HAS_SESSIONS /* MPI-4 (CMakeLists.txt: Open MPI 5 says 3.1) */
#include <string.h>
static char lens_session_me; /* this module, to the core */
static inline int lens_session_level(MPI_Info info)
{
    char value[64] = "";
    int found = 0;
    if (info != MPI_INFO_NULL)
        PMPI_Info_get(info, "thread_level", sizeof value - 1, value, &found);
    return !found                                        ? MPI_THREAD_SINGLE
           : strcmp(value, "MPI_THREAD_MULTIPLE") == 0   ? MPI_THREAD_MULTIPLE
           : strcmp(value, "MPI_THREAD_SERIALIZED") == 0 ? MPI_THREAD_SERIALIZED
           : strcmp(value, "MPI_THREAD_FUNNELED") == 0   ? MPI_THREAD_FUNNELED
                                                         : MPI_THREAD_SINGLE;
}
#define LENS_SESSION_LIFE(INIT_THREAD, FINALIZE)                                                   \
    int MPI_Session_init(MPI_Info info, MPI_Errhandler handler, MPI_Session *session)              \
    {                                                                                              \
        int provided = 0;                                                                          \
        if (mpilens_session_claim && mpilens_session_claim(&lens_session_me))                      \
            INIT_THREAD(NULL, NULL, lens_session_level(info), &provided);                          \
        int rc = MPILENS_DOWN(Session_init)(info, handler, session);                               \
        if (rc == MPI_SUCCESS && mpilens_session_opened)                                           \
            mpilens_session_opened(&lens_session_me);                                              \
        return rc;                                                                                 \
    }                                                                                              \
    int MPI_Session_finalize(MPI_Session *session)                                                 \
    {                                                                                              \
        int rc = MPILENS_DOWN(Session_finalize)(session);                                          \
        if (rc == MPI_SUCCESS && mpilens_session_closed &&                                         \
            mpilens_session_closed(&lens_session_me))                                              \
            FINALIZE();                                                                            \
        return rc;                                                                                 \
    }
#else
#define LENS_SESSION_LIFE(INIT_THREAD, FINALIZE)
#endif

#endif
