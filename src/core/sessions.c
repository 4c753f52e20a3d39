/* SPDX-License-Identifier: BSD-3-Clause */
/* sessions.c: MPI-4 sessions for the modules (include/mpilens.h, mpilens_session_claim):
 * which module starts MPI's world model under a program that only uses sessions, and when
 * the last session is closed. The library's MPI_Initialized tells whether the program (or
 * the module that claimed) initialized it already: then nothing is claimed.
 */
#include <pthread.h>

#include "core.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const void *claimant; /* the module that started the world model for the sessions */
static int open_sessions;

typedef int (*flag_fn)(int *);

int mpilens_session_claim(const void *me)
{
    int initialized = 0, finalized = 0;
    ((flag_fn)lens_library("MPI_Initialized"))(&initialized);
    ((flag_fn)lens_library("MPI_Finalized"))(&finalized);
    pthread_mutex_lock(&lock);
    int claimed = !initialized && !finalized && !claimant;
    if (claimed)
        claimant = me;
    pthread_mutex_unlock(&lock);
    return claimed;
}

/* Only the claimant counts: it is the first module the program's calls reach, so it sees
 * each of them once (the modules below see them too). */
void mpilens_session_opened(const void *me)
{
    pthread_mutex_lock(&lock);
    open_sessions += claimant == me;
    pthread_mutex_unlock(&lock);
}

int mpilens_session_closed(const void *me)
{
    pthread_mutex_lock(&lock);
    int last = claimant == me && open_sessions > 0 && --open_sessions == 0;
    pthread_mutex_unlock(&lock);
    return last;
}
