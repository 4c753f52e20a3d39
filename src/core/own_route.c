/* SPDX-License-Identifier: BSD-3-Clause */
/* own_route.c: where a module's own MPI_X call goes (the isolation rule of dispatch.h).
 * Reached only from MPI_X entries called above level 0, so off the application's path.
 */
#include "core.h"
#include "dispatch.h"

lens_voidfn lens_own_route(int k, uintptr_t caller)
{
    int level = lens_level;
    if (level < 1 || level > lens_nmodules)
        return 0;
    const struct lens_module *mod = &lens_modules[level - 1];
    /* The module's own code, or its tail call (then the return address is the runner in
     * libmpilens that entered the module). Anything else is the application, called back
     * by the library while the module ran. */
    if (caller - mod->text_lo >= mod->text_span && caller - lens_self_lo >= lens_self_span)
        return 0;
    return mod->wrappers[k] ? mod->wrappers[k] : lens_slots[k].real;
}
