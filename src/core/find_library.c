/* SPDX-License-Identifier: BSD-3-Clause */
/* find_library.c: the MPI library, wherever it came from.
 *
 * A program linked with MPI (or one that preloads it) has the library in the global scope
 * after libmpilens, where dlsym(RTLD_NEXT) finds it before main(). An interpreter is not
 * linked with MPI: its MPI binding (mpi4py's extension, a Julia or R package) loads the
 * library later with dlopen, often RTLD_LOCAL, where no global look-up sees it. So when
 * the first MPI call comes and RTLD_NEXT found nothing, the loaded objects are searched
 * for the one that defines PMPI_Init itself (not through a library it links), and the
 * library's functions are taken from a handle on that object (dlopen RTLD_NOLOAD: it is
 * never loaded by us, only found; the handle keeps it loaded while we hold its
 * addresses).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define MAX_OBJECTS 512

struct loaded {
    int count;
    char *paths[MAX_OBJECTS];
};

static int collect_paths(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct loaded *all = data;
    if (info->dlpi_name && info->dlpi_name[0] == '/' && all->count < MAX_OBJECTS)
        all->paths[all->count++] = strdup(info->dlpi_name);
    return 0;
}

/* A handle on the object loaded from PATH if it is an MPI library (it defines PMPI_Init
 * itself, not through a library it links), else NULL. */
static void *mpi_library_at(const char *path)
{
    void *handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return NULL;
    Dl_info info;
    void *init = lens_real_dlsym(handle, "PMPI_Init");
    if (init && dladdr(init, &info) && info.dli_fname && strcmp(info.dli_fname, path) == 0)
        return handle;
    dlclose(handle);
    return NULL;
}

void *lens_mpi_library_handle(const char *self_path, char *path, size_t len)
{
    struct loaded all = {0};
    dl_iterate_phdr(collect_paths, &all); /* dlopen only after: the walk holds a lock */
    void *found = NULL;
    for (int i = 0; i < all.count && !found; i++) {
        if (strcmp(all.paths[i], self_path) != 0 && (found = mpi_library_at(all.paths[i])))
            snprintf(path, len, "%s", all.paths[i]);
    }
    for (int i = 0; i < all.count; i++)
        free(all.paths[i]);
    return found;
}

int lens_is_mpi_library(const char *path)
{
    void *handle = path && path[0] == '/' ? mpi_library_at(path) : NULL;
    if (handle)
        dlclose(handle);
    return handle != NULL;
}
