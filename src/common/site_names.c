/* SPDX-License-Identifier: BSD-3-Clause */
/* site_names.c: call sites named from debug information (libdw) or a Python label
 * (site_names.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_names.h"

#define NAMER_OBJECTS 64

struct lens_site_namer {
    Dwfl *dwfl;
    struct {
        char path[4096];
        Dwfl_Module *mod;
    } objects[NAMER_OBJECTS];
    int nobjects;
};

struct lens_site_namer *lens_site_namer_new(void)
{
    static const Dwfl_Callbacks callbacks = {.find_debuginfo = dwfl_standard_find_debuginfo,
                                             .section_address = dwfl_offline_section_address};
    struct lens_site_namer *namer = calloc(1, sizeof *namer);
    if (namer && !(namer->dwfl = dwfl_begin(&callbacks))) {
        free(namer);
        return NULL;
    }
    return namer;
}

void lens_site_namer_free(struct lens_site_namer *namer)
{
    if (!namer)
        return;
    dwfl_end(namer->dwfl);
    free(namer);
}

/* The module of the object at PATH, reported to libdw once (each keeps its bias). */
static Dwfl_Module *module_of(struct lens_site_namer *namer, const char *path)
{
    for (int i = 0; i < namer->nobjects; i++)
        if (strcmp(namer->objects[i].path, path) == 0)
            return namer->objects[i].mod;
    dwfl_report_begin_add(namer->dwfl);
    Dwfl_Module *mod = dwfl_report_offline(namer->dwfl, path, path, -1);
    dwfl_report_end(namer->dwfl, NULL, NULL);
    if (namer->nobjects < NAMER_OBJECTS) {
        snprintf(namer->objects[namer->nobjects].path, sizeof namer->objects[0].path, "%s", path);
        namer->objects[namer->nobjects++].mod = mod;
    }
    return mod;
}

/* The innermost function around ADDR in the source, an inlined one included (a static
 * helper inlined into main() is named as the helper, as the programmer wrote it); NULL
 * without debug information. */
static const char *inlined_function(Dwfl_Module *mod, Dwarf_Addr addr)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
    const char *name = NULL;
    for (int i = 0; i < n && !name; i++) {
        int tag = dwarf_tag(&scopes[i]);
        Dwarf_Attribute attr;
        if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
            name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr));
    }
    free(scopes);
    return name;
}

/* A Python line's label, "python:FILE:FUNCTION:LINE" (mpilens_site_label): 1 if PATH is
 * one, named into N. */
static int name_python_site(const char *path, struct lens_site_name *n)
{
    if (strncmp(path, "python:", 7) != 0)
        return 0;
    const char *line = strrchr(path, ':');
    const char *function = line;
    while (function > path + 6 && function[-1] != ':')
        function--;
    if (function <= path + 7)
        return 0;
    snprintf(n->file, sizeof n->file, "%.*s", (int)(function - 1 - (path + 7)), path + 7);
    snprintf(n->function, sizeof n->function, "%.*s", (int)(line - function), function);
    n->line = atoi(line + 1);
    return 1;
}

void lens_site_name(struct lens_site_namer *namer, const char *path, uint64_t offset,
                    struct lens_site_name *n)
{
    memset(n, 0, sizeof *n);
    snprintf(n->function, sizeof n->function, "?");
    if (name_python_site(path, n))
        return;
    if (!namer)
        return;
    Dwfl_Module *mod = module_of(namer, path);
    if (!mod)
        return;
    Dwarf_Addr bias = 0;
    if (!dwfl_module_getelf(mod, &bias))
        return;
    Dwarf_Addr addr = bias + offset - 1; /* inside the call instruction, not after it */
    const char *fn = inlined_function(mod, addr);
    if (!fn)
        fn = dwfl_module_addrname(mod, addr);
    if (fn)
        snprintf(n->function, sizeof n->function, "%s", fn);
    Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file) {
        snprintf(n->file, sizeof n->file, "%s", file);
        n->line = lineno;
    }
}
