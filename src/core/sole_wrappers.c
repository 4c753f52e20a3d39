/* SPDX-License-Identifier: BSD-3-Clause */
/* sole_wrappers.c: in a stack of modules that all allow direct entry, a function that only
 * one of them wraps is entered as if that module were alone (solo.c), the others keeping
 * the runners of dispatch.h.
 *
 * With profile and monitor stacked, MPI_Recv and MPI_Wait are the profile's alone: nobody
 * below needs the level a runner sets, so the application's MPI_X jumps straight to the
 * module's wrapper and the module's PMPI_X reference (its GOT slot, got_slots.c) goes
 * straight to what lies below it (the library, or the core's MPI_Init/MPI_Finalize hook).
 *
 * Only when every module in the stack exports mpilens_module_direct (mpilens.h), which
 * promises that a module's own calls go through PMPI_ functions, never MPI_X: a call
 * entered directly runs at level 0, where the entry of MPI_Y could not tell the module's
 * own MPI_Y from the application's. Its own PMPI_Y calls reach the step of its level with
 * the level 0 (no runner set one): the steps send those to the library
 * (lens_level0_own_traffic). A module whose slots cannot all be bound keeps its runners.
 * MPILENS_SOLE=off keeps the runners for every function (for comparisons).
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

int lens_level0_own_traffic;

/* 1 if every module exports mpilens_module_direct. */
static int all_direct(void)
{
    for (int i = 0; i < lens_nmodules; i++)
        if (!lens_module_symbol(&lens_modules[i], "mpilens_module_direct"))
            return 0;
    return 1;
}

/* The number of modules that wrap function K. */
static int wrappers_of(int k)
{
    int n = 0;
    for (int i = 0; i < lens_nmodules; i++)
        n += lens_modules[i].wrappers[k] != NULL;
    return n;
}

void lens_sole_wrappers_setup(const lens_voidfn *below)
{
    const char *mode = getenv("MPILENS_SOLE");
    /* levels past the steps' keep the generic step, which cannot tell level 0 apart */
    if (lens_nmodules < 2 || lens_nmodules > LENS_STUB_LEVELS ||
        (mode && strcmp(mode, "off") == 0) || !all_direct())
        return;
    lens_voidfn *own = malloc((size_t)lens_function_count * sizeof *own);
    if (!own)
        return; /* the runners stay */
    for (int i = 0; i < lens_nmodules; i++) {
        struct lens_module *mod = &lens_modules[i];
        int any = 0;
        for (int k = 0; k < lens_function_count; k++) {
            own[k] = mod->wrappers[k] && wrappers_of(k) == 1 ? below[k] : NULL;
            any |= own[k] != NULL;
        }
        /* bound first: a sole wrapper entered directly whose PMPI_X still led to the
         * level's step would come back to its own entry */
        if (!any || lens_bind_module_pmpi(mod, own) < 0)
            continue;
        lens_level0_own_traffic = 1;
        for (int k = 0; k < lens_function_count; k++)
            if (own[k])
                lens_slots[k].top = (struct lens_hop){mod->wrappers[k], 0, 1};
    }
    free(own);
}
