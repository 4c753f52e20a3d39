/* own_symbol.c: find a symbol that a shared object defines itself.
 *
 * dlsym(handle, name) also searches the libraries the object links (libmpi defines every
 * MPI_X), so a hit counts only if dladdr1 says it lies in the object's own link map.
 * Used by the core's loader and by `mpilens modules`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>

#include "modspec.h"

void *lens_own_symbol(void *handle, const char *name)
{
    void *sym = dlsym(handle, name);
    if (!sym)
        return NULL;
    Dl_info info;
    struct link_map *owner = NULL, *self = NULL;
    if (!dladdr1(sym, &info, (void **)&owner, RTLD_DL_LINKMAP))
        return NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &self) != 0)
        return NULL;
    return owner == self ? sym : NULL;
}
