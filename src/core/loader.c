/* SPDX-License-Identifier: BSD-3-Clause */
/* loader.c: open one module's .so and find the MPI functions it wraps.
 *
 * A module is any PMPI tool: the functions it wraps are the MPI_X symbols its own .so
 * defines (lens_own_symbol: not those of libmpi, which it links), less those that only
 * jump to PMPI_X (forwarders.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

void *lens_module_symbol(const struct lens_module *mod, const char *name)
{
    return lens_own_symbol(mod->handle, name);
}

int lens_module_at(uintptr_t addr)
{
    for (int i = 0; i < lens_nmodules; i++)
        if (addr - lens_modules[i].text_lo < lens_modules[i].text_span)
            return i;
    return -1;
}

int lens_module_load(struct lens_module *mod, char *err)
{
    char where[600];
    lens_modspec_where(&mod->spec, where, sizeof where);
    char damaged[LENS_ERR_LEN];
    if (lens_elf_problem(mod->path, damaged, sizeof damaged)) {
        snprintf(err, LENS_ERR_LEN, "%s: module '%s': %s", where, mod->spec.name, damaged);
        return -1;
    }
    mod->handle = dlopen(mod->path, RTLD_NOW | RTLD_LOCAL);
    if (!mod->handle) {
        snprintf(err, LENS_ERR_LEN,
                 "%s: module '%s' failed to load: %s; rebuild it against this MPI or fix "
                 "its dependencies (ldd %s)",
                 where, mod->spec.name, dlerror(), mod->path);
        return -1;
    }
    mod->wrappers = calloc(lens_function_count, sizeof *mod->wrappers);
    for (int k = 0; k < lens_function_count; k++) {
        mod->wrappers[k] = (lens_voidfn)lens_module_symbol(mod, lens_function_names[k]);
        if (mod->wrappers[k] && !mod->text_span) {
            struct code_range text = lens_code_around((void *)mod->wrappers[k]);
            mod->text_lo = text.lo;
            mod->text_span = text.span;
        }
    }
    lens_drop_forwarders(mod); /* after the code's range: a forwarder is still the module's */
    mod->args.name = mod->spec.name;
    mod->args.path = mod->path;
    mod->args.count = mod->spec.nargs;
    mod->args.keys = (const char *const *)mod->spec.keys;
    mod->args.values = (const char *const *)mod->spec.values;
    return 0;
}
