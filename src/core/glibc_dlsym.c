/* SPDX-License-Identifier: BSD-3-Clause */
/* glibc_dlsym.c: the C library's own dlsym, for the core (boot.c, find_library.c,
 * python_sites.c) and for the dlsym that libmpilens defines (dlsym_route.c), which hands
 * every look-up it does not change to it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "core.h"

LENS_HIDDEN lens_dlsym_fn lens_glibc_dlsym;

/* glibc's dlsym (2.34 moved it into libc under a new version). */
lens_dlsym_fn lens_dlsym_setup(void)
{
    if (!lens_glibc_dlsym) {
        void *fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!fn)
            fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        if (!fn)
            lens_die("cannot find the C library's dlsym (glibc 2.17 or later is needed)");
        lens_glibc_dlsym = (lens_dlsym_fn)fn;
    }
    return lens_glibc_dlsym;
}

void *lens_real_dlsym(void *handle, const char *name)
{
    return lens_dlsym_setup()(handle, name);
}
