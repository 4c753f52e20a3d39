/* SPDX-License-Identifier: BSD-3-Clause */
/* solo.c: a module alone in the stack, entered without the core's runners.
 *
 * With one module there is nobody to isolate it from, so the levels of dispatch.h have
 * nothing to decide: the application's MPI_X can jump straight to the module's wrapper
 * (the top hop becomes direct, as the library's is), and the module's PMPI_X can go
 * straight to what lies below it (the library, or the core's MPI_Init/MPI_Finalize hooks).
 * That takes the runner and the step off every wrapped call (about 45 instructions).
 *
 * Only a module that says it can be entered this way gets it (it exports
 * mpilens_module_direct, mpilens.h): its wrappers find the call site with
 * mpilens_site(__builtin_return_address(0)) and never rely on the level they run at.
 *
 * The module's PMPI_X references are bound below it by writing the library's address into
 * its GOT slots (got_slots.c: the relocations the dynamic linker filled with libmpilens's
 * PMPI_X). The module is entered directly only when every one of them was bound: a PMPI_X
 * reaching the core's step at level 0 from a module's tail call looks like the
 * application's own, so the step cannot route it. (A module that opts in promises to call
 * PMPI_X only through its own references, not through pointers it looks up itself.) Where
 * we do not read the relocations (architectures other than x86-64 and aarch64) the module
 * runs as when stacked.
 *
 * MPILENS_SOLO=off keeps the runners (for comparisons); MPILENS_SOLO=report says, once,
 * that it entered a module directly and how many references it bound.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

void lens_solo_setup(lens_voidfn *below)
{
    const char *mode = getenv("MPILENS_SOLO");
    if (lens_nmodules != 1 || (mode && strcmp(mode, "off") == 0))
        return;
    const struct lens_module *mod = &lens_modules[0];
    if (!lens_module_symbol(mod, "mpilens_module_direct"))
        return;
    int bound = lens_bind_module_pmpi(mod, below);
    if (bound < 0)
        return; /* run through the runners: any slot already bound still leads below it */
    for (int k = 0; k < lens_function_count; k++)
        if (mod->wrappers[k])
            lens_slots[k].top = (struct lens_hop){mod->wrappers[k], 0, 1};
    if (mode && strcmp(mode, "report") == 0)
        lens_say("%s alone: entered directly, %d PMPI references bound in its GOT", mod->spec.name,
                 bound);
}
