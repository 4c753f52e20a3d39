/* SPDX-License-Identifier: BSD-3-Clause */
/* fortran_sites.c: the application's call site of an MPI call made from Fortran.
 *
 * A Fortran call goes through the MPI library's Fortran bindings (Open MPI's libmpi_mpifh,
 * libmpi_usempif08, libmpi_usempi_ignore_tkr; MPICH's libmpichfort), which then call the C
 * function (Open MPI: PMPI_X; MPICH: MPI_X). The return address the core stores on entry is
 * then inside a binding, not in the application. Bindings are built without frame
 * pointers: the first call from a place in a binding unwinds (glibc's backtrace, the
 * bindings' unwind tables) to the first frame in the application's code, and remembers
 * how many stack words above the binding's return-address slot the application's return
 * address lies; later calls from there read that word (checked to be application code).
 * Only calls whose stored site is inside a binding pay for this (mpilens_caller()); C
 * calls pay one compare per binding library loaded (none in a C program). The store of
 * the site for calls entering by PMPI_X is in the step runner (dispatch.h).
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "dispatch.h"

#define MAX_BINDINGS 8
#define SEARCH_WORDS 512 /* from mpilens_caller's frame to the binding's call */
#define CALLER_WORDS 256 /* from there to the application's return address */

static const char *const binding_names[] = {"libmpi_mpifh", "libmpi_usempi", "libmpichfort",
                                            "libmpifort"};

LENS_HIDDEN struct code_range lens_bindings[MAX_BINDINGS];
LENS_HIDDEN int lens_nbindings;

static int is_binding(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (unsigned i = 0; i < sizeof binding_names / sizeof *binding_names; i++)
        if (strncmp(base, binding_names[i], strlen(binding_names[i])) == 0)
            return 1;
    return 0;
}

static int collect_bindings(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!info->dlpi_name || !is_binding(info->dlpi_name))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && lens_nbindings < MAX_BINDINGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            lens_bindings[lens_nbindings++] =
                (struct code_range){0, info->dlpi_addr + ph->p_vaddr, ph->p_memsz};
    }
    return 0;
}

void lens_find_bindings(void)
{
    lens_nbindings = 0;
    dl_iterate_phdr(collect_bindings, NULL);
}

static int in_binding(uintptr_t a)
{
    for (int i = 0; i < lens_nbindings; i++)
        if (a - lens_bindings[i].lo < lens_bindings[i].span)
            return 1;
    return 0;
}

/* The text of the object that made the last Fortran call found (the application). */
static __thread struct code_range app_text;

/* Is a in code of a loaded object other than the MPI library, its bindings and
 * libmpilens (and its modules, which never call through a binding)? */
static int application_code(uintptr_t a)
{
    if (a < 4096 || in_binding(a) || a - lens_lib_lo < lens_lib_span ||
        a - lens_self_lo < lens_self_span)
        return 0;
    if (a - app_text.lo < app_text.span)
        return 1;
    struct code_range text = lens_code_around((void *)a);
    if (text.span == 0)
        return 0;
    if (lens_module_at(a) >= 0)
        return 0;
    app_text = text;
    return 1;
}

/* Per thread: for the return address of a binding's call into the stack, how many words
 * above that slot the application's return address lies (a binding function's frame has a
 * fixed size), found once with the unwinder. */
#define CACHE 64
static __thread struct {
    uintptr_t site;
    int distance;
} cache[CACHE];

static __attribute__((noinline)) void *binding_caller(void *site)
{
    uintptr_t *sp = (uintptr_t *)__builtin_frame_address(0);
    int slot = -1;
    for (int i = 0; i < SEARCH_WORDS; i++)
        if (sp[i] == (uintptr_t)site) {
            slot = i;
            break;
        }
    if (slot < 0)
        return site; /* not found: the binding's own address (named as such in reports) */
    unsigned h = (unsigned)(((uintptr_t)site * 0x9E3779B97F4A7C15ull) >> 58);
    if (cache[h].site == (uintptr_t)site && application_code(sp[slot + cache[h].distance]))
        return (void *)sp[slot + cache[h].distance];
    /* First time from this place: unwind (the bindings have unwind tables; their frames
     * hold stale words that look like return addresses, so no guessing). */
    void *frames[48];
    int n = backtrace(frames, 48), f = 0;
    while (f < n && frames[f] != site)
        f++;
    for (f++; f < n && !application_code((uintptr_t)frames[f]); f++)
        ;
    if (f >= n)
        return site;
    for (int j = slot + 1; j < slot + 1 + CALLER_WORDS; j++)
        if (sp[j] == (uintptr_t)frames[f]) {
            cache[h].site = (uintptr_t)site;
            cache[h].distance = j - slot;
            break;
        }
    return frames[f];
}

void *lens_fortran_caller(void *site)
{
    return in_binding((uintptr_t)site) ? binding_caller(site) : site;
}
