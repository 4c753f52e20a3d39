/* SPDX-License-Identifier: BSD-3-Clause */
/* forwarders.c: a module's MPI_X that does nothing but jump to its PMPI_X is not a layer.
 *
 * Generated wrappers and empty layers often define MPI_X as `return PMPI_X(...)`, which
 * compilers emit as one jump: to the PLT entry of PMPI_X (`jmp PMPI_X@plt`, whose entry
 * jumps through the module's GOT slot of PMPI_X), or through the slot itself (-fno-plt).
 * Such a wrapper sees the call and changes nothing, so the core leaves it out of the
 * dispatch tables: a call goes past the module as if it did not wrap X, and a stack of N
 * such layers costs what no layer costs (bench/stack_overhead.py). The module's other
 * wrappers, and its own PMPI_X references, are untouched.
 *
 * Recognised on x86-64 only (endbr64 and the bnd prefix allowed, the jumps read from the
 * module's own code): anything else is kept as a layer. MPILENS_EMPTY_LAYERS=keep keeps
 * every wrapper (to measure the steps of a deep stack, or to compare).
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

#if defined(__x86_64__)
/* A function's slots: PMPI_X called and taken by address, and a chained module's
 * pass-down (chain.c); 0: none. */
struct fn_slots {
    uintptr_t slot[3];
};

static int note_slot(int k, uintptr_t slot, int down, void *data)
{
    struct fn_slots *slots = data;
    slots[k].slot[down ? 2 : slots[k].slot[0] != 0] = slot;
    return 0;
}

static const unsigned char *past_endbr(const unsigned char *p)
{
    return memcmp(p, "\xf3\x0f\x1e\xfa", 4) == 0 ? p + 4 : p;
}

/* The slot that `jmp *disp32(%rip)` at P (a bnd prefix or not) jumps through, or 0. */
static uintptr_t jump_slot(const unsigned char *p)
{
    p += p[0] == 0xf2;
    if (p[0] != 0xff || p[1] != 0x25)
        return 0;
    int32_t disp;
    memcpy(&disp, p + 2, sizeof disp);
    return (uintptr_t)(p + 6) + (intptr_t)disp;
}

/* The GOT slot through which the code at FN (inside TEXT) jumps at once: directly, or by
 * `jmp rel32` to a PLT entry in TEXT that does; else 0. Reads at most 16 bytes at each place,
 * only inside TEXT. */
static uintptr_t forwarding_slot(uintptr_t fn, struct code_range text)
{
    if (fn - text.lo >= text.span || text.span - (fn - text.lo) < 16)
        return 0;
    const unsigned char *p = past_endbr((const unsigned char *)fn);
    uintptr_t slot = jump_slot(p);
    if (slot)
        return slot;
    p += p[0] == 0xf2;
    if (p[0] != 0xe9)
        return 0;
    int32_t rel;
    memcpy(&rel, p + 1, sizeof rel);
    uintptr_t entry = (uintptr_t)(p + 5) + (intptr_t)rel;
    if (entry - text.lo >= text.span || text.span - (entry - text.lo) < 16)
        return 0;
    return jump_slot(past_endbr((const unsigned char *)entry));
}

void lens_drop_forwarders(struct lens_module *mod)
{
    const char *mode = getenv("MPILENS_EMPTY_LAYERS");
    if (mode && strcmp(mode, "keep") == 0)
        return;
    struct fn_slots *slots = calloc((size_t)lens_function_count, sizeof *slots);
    if (!slots || lens_module_pmpi_slots(mod, note_slot, slots) < 0) {
        free(slots);
        return; /* relocations not read: every wrapper stays a layer */
    }
    /* the module's code, found by the loader (a wrapper outside it stays a layer) */
    struct code_range text = {0, mod->text_lo, mod->text_span};
    for (int k = 0; k < lens_function_count; k++) {
        uintptr_t fn = (uintptr_t)mod->wrappers[k];
        if (!fn)
            continue;
        uintptr_t slot = forwarding_slot(fn, text);
        const uintptr_t *own = slots[k].slot;
        if (slot && (slot == own[0] || slot == own[1] || slot == own[2]))
            mod->wrappers[k] = NULL;
    }
    free(slots);
}
#else
void lens_drop_forwarders(struct lens_module *mod)
{
    (void)mod;
}
#endif
