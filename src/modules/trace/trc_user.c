/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_user.c: user regions (program phases) in the trace, through MPI_Pcontrol.
 *
 * MPI_Pcontrol(1) enters a user region, MPI_Pcontrol(0) leaves the innermost one; the name
 * of the region the next MPI_Pcontrol(1) enters is set with mpilens_trace_region(name)
 * (include/mpilens.h, the service "trace.api"); without a name the region is "phase".
 * Other levels pass through untouched. Regions are OTF2 regions of paradigm USER with local
 * ids R_REGIONS + i while the run goes; the merge of definitions (trc_defs.c) gives each
 * name its global id, and each rank writes a region mapping table (MPI regions map to
 * themselves).
 */
#include <mpilens.h>
#include <stdlib.h>
#include <string.h>

#include "run_output.h"
#include "trc.h"

#define MAX_DEPTH 64 /* the size of trc_thread's stack */

static char **names; /* local user region i is names[i] (under trc_lock) */
static uint32_t nnames;
static __thread char *next_name; /* each thread names its own next region */

static int name_region(const char *name)
{
    free(next_name);
    next_name = name ? strdup(name) : NULL;
    return 0;
}

static struct mpilens_trace_api api = {name_region};

void trc_user_publish(void)
{
    mpilens_publish("trace.api", &api, sizeof api);
}

static uint32_t local_region(const char *name)
{
    pthread_mutex_lock(&trc_lock);
    uint32_t i = 0;
    while (i < nnames && strcmp(names[i], name) != 0)
        i++;
    if (i == nnames) {
        char *copy = NULL; /* both through lens_grow: a failure is said */
        if (lens_grow("trace", &copy, strlen(name) + 1, 1) == 0 &&
            lens_grow("trace", &names, nnames + 1, sizeof *names) == 0) {
            names[nnames] = strcpy(copy, name);
            __atomic_store_n(&nnames, nnames + 1, __ATOMIC_RELEASE);
        } else {
            free(copy);
            i = UINT32_MAX; /* out of memory (said): the region is not recorded */
        }
    }
    pthread_mutex_unlock(&trc_lock);
    return i;
}

/* Each thread has its own stack of open regions (its own log). */
int MPI_Pcontrol(const int level, ...)
{
    struct trc_thread *me = trc_on ? trc_me() : NULL;
    if (me && level == 1 && me->depth < MAX_DEPTH) {
        uint32_t r = local_region(next_name ? next_name : "phase");
        me->stack[me->depth++] = r;
        if (r != UINT32_MAX) /* else out of memory for its name: not recorded (said) */
            trc_enter(R_REGIONS + r);
    } else if (me && level == 0 && me->depth > 0) {
        uint32_t r = me->stack[--me->depth];
        if (r != UINT32_MAX)
            trc_leave(R_REGIONS + r);
    }
    return MPILENS_DOWN(Pcontrol)(level);
}

/* Leaves the regions still open (at MPI_Finalize, before the event files close): those of
 * the finalizing thread (another thread's log would be written from here). */
void trc_user_close(void)
{
    struct trc_thread *me = trc_me();
    while (me->depth > 0) {
        uint32_t r = me->stack[--me->depth];
        if (r != UINT32_MAX)
            trc_leave(R_REGIONS + r);
    }
}

/* ---- local definitions (async-signal-safe) ---- */

uint32_t trc_user_count(void)
{
    return nnames;
}

void trc_user_emit(struct mpilens_emitter *e, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (const char *p = names[i];; p++) { /* byte by byte: a name may exceed the buffer */
            mpilens_emit(e, p, 1);
            if (!*p)
                break;
        }
}
