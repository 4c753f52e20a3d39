/* SPDX-License-Identifier: BSD-3-Clause */
/* chain.c: a stack of chained modules calls each module straight from the one above it.
 *
 * A module that exports mpilens_module_chained promises two things: it passes the
 * application's call of MPI_X on with mpilens_down_MPI_X(...) (lens_down.h), and it makes
 * its own calls with PMPI_ functions only. Its two kinds of references then have GOT slots
 * of their own, and the core binds them at boot: a module's pass-down of X to the next
 * module that wraps X (or to what lies below the stack: the library, or the core's
 * MPI_Init/MPI_Finalize hooks), its PMPI_X to the library. The application's MPI_X stores
 * its call site and jumps to the first module that wraps X. No runner, no level: a call
 * through N modules costs what the N modules cost, and a module's own traffic reaches the
 * library without passing the core, so no module sees another's (the isolation rule of
 * ../shared/DESIGN.md holds by construction, not by a test on every call).
 *
 * Taken when every module of a stack of two or more is chained, each passes down every
 * function it wraps (a wrapper without a pass-down could not reach the next module), and
 * the relocations can be read and written (x86-64 and aarch64). Otherwise, or with
 * MPILENS_CHAIN=off, the stack runs through the levels as before. MPILENS_CHAIN=report
 * says which it chose and why.
 *
 * Call sites: MPI_X jumps to its first module without storing the call site, so a module
 * that is first for every function it wraps sees the application's return address. One
 * below another module for some function sees an address inside the module above; when
 * it asks for the site range (mpilens_site_range, at its init), every function it wraps
 * stores the call site on entry (LENS_CHAINED: about 6 instructions a call), and the range
 * it gets covers every module's code, so that any address inside names the stored site.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

static int note_down(int k, uintptr_t slot, int down, void *data)
{
    (void)slot;
    if (down)
        ((char *)data)[k] = 1;
    return 0;
}

/* Why the stack cannot be chained (WHY, LEN), or 0 when it can. */
static int unchainable(char *why, size_t len)
{
    char *passes = malloc((size_t)lens_function_count);
    if (!passes) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < lens_nmodules && rc == 0; i++) {
        const struct lens_module *mod = &lens_modules[i];
        if (!lens_module_symbol(mod, "mpilens_module_chained")) {
            snprintf(why, len, "%s is not chained", mod->spec.name);
            rc = -1;
            break;
        }
        memset(passes, 0, (size_t)lens_function_count);
        if (lens_module_pmpi_slots(mod, note_down, passes) < 0) {
            snprintf(why, len, "%s's relocations could not be read", mod->spec.name);
            rc = -1;
            break;
        }
        for (int k = 0; k < lens_function_count; k++)
            if (mod->wrappers[k] && !passes[k]) {
                snprintf(why, len, "%s wraps %s without passing it down", mod->spec.name,
                         lens_function_names[k]);
                rc = -1;
                break;
            }
    }
    free(passes);
    return rc;
}

/* The next module below level LEVEL (1-based) that wraps function K, or BELOW[K] (NULL
 * without BELOW). */
static lens_voidfn next_below(int level, int k, const lens_voidfn *below)
{
    for (int i = level; i < lens_nmodules; i++)
        if (lens_modules[i].wrappers[k])
            return lens_modules[i].wrappers[k];
    return below ? below[k] : NULL;
}

static int chained;

int lens_chain_in_module(uintptr_t addr)
{
    return chained && lens_module_at(addr) >= 0;
}

/* Whether module M is below another module for some function it wraps. */
static int below_another(int m)
{
    for (int k = 0; k < lens_function_count; k++)
        if (lens_modules[m].wrappers[k] && next_below(0, k, NULL) != lens_modules[m].wrappers[k])
            return 1;
    return 0;
}

void lens_chain_site_range(uintptr_t caller, uintptr_t *lo, uintptr_t *span)
{
    *lo = lens_self_lo;
    *span = lens_self_span;
    int m = chained ? lens_module_at(caller) : -1;
    if (m < 0 || !below_another(m))
        return;
    for (int k = 0; k < lens_function_count; k++)
        if (lens_modules[m].wrappers[k])
            lens_slots[k].top.direct = LENS_CHAINED;
    uintptr_t hi = lens_self_lo + lens_self_span;
    for (int i = 0; i < lens_nmodules; i++) {
        const struct lens_module *mod = &lens_modules[i];
        if (!mod->text_span)
            continue;
        if (mod->text_lo < *lo)
            *lo = mod->text_lo;
        if (mod->text_lo + mod->text_span > hi)
            hi = mod->text_lo + mod->text_span;
    }
    *span = hi - *lo;
}

int lens_chain_setup(const lens_voidfn *below)
{
    const char *mode = getenv("MPILENS_CHAIN");
    int report = mode && strcmp(mode, "report") == 0;
    char why[256];
    if (lens_nmodules < 2 || (mode && strcmp(mode, "off") == 0))
        return 0;
    if (unchainable(why, sizeof why) != 0) {
        if (report)
            lens_say("stack not chained: %s", why);
        return 0;
    }
    lens_voidfn *own = malloc((size_t)lens_function_count * sizeof *own);
    lens_voidfn *down = malloc((size_t)lens_function_count * sizeof *down);
    int ok = own && down;
    for (int k = 0; ok && k < lens_function_count; k++)
        own[k] = lens_slots[k].real;
    int bound = 0;
    for (int i = 0; ok && i < lens_nmodules; i++) {
        for (int k = 0; k < lens_function_count; k++)
            down[k] = next_below(i + 1, k, below);
        int n = lens_bind_module_slots(&lens_modules[i], own, down);
        ok = n >= 0;
        bound += n;
    }
    free(own);
    free(down);
    if (!ok) {
        /* a module half bound: the levels bind every slot again */
        if (report)
            lens_say("stack not chained: a module's GOT could not be written");
        return 0;
    }
    for (int k = 0; k < lens_function_count; k++) {
        lens_voidfn first = next_below(0, k, below);
        if (first != below[k])
            lens_slots[k].top = (struct lens_hop){first, 0, 1};
    }
    chained = 1;
    if (report)
        lens_say("stack of %d modules chained: %d references bound", lens_nmodules, bound);
    return 1;
}
