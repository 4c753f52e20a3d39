/* SPDX-License-Identifier: BSD-3-Clause */
/* levels.c: in a stack of several modules, each module's PMPI_X references lead to the
 * step of its own level (dispatch.h, LENS_LEVEL_STEP), not to the one PMPI_X step every
 * level shares.
 *
 * A call through N thin layers (wrappers that tail-call PMPI_X) passes the step N times.
 * With one step, its jump to the next layer is one instruction whose target changes at
 * every layer with a branch history that does not (the same compares each time), so the
 * CPU mispredicts it at every layer of a deep stack, more the deeper it is. Each level's
 * own step has its own jump with one target. The routing is the generic step's: a level
 * step only takes its common case itself and passes everything else on to PMPI_X.
 *
 * Levels 1 to LENS_STUB_LEVELS have steps; deeper modules keep the generic one. The
 * binding writes the module's GOT slots as solo.c does (x86-64 and aarch64); where it
 * cannot, the module keeps the generic step. MPILENS_LEVEL_STEPS=off keeps the generic
 * step everywhere (for comparisons: bench/stack_overhead.py).
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"

void lens_levels_setup(void)
{
    const char *mode = getenv("MPILENS_LEVEL_STEPS");
    if (lens_nmodules < 2 || (mode && strcmp(mode, "off") == 0))
        return;
    for (int i = 0; i < lens_nmodules && i < LENS_STUB_LEVELS; i++)
        lens_bind_module_pmpi(&lens_modules[i], lens_level_steps[lens_modules[i].args.level]);
}
