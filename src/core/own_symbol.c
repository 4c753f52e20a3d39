/* SPDX-License-Identifier: BSD-3-Clause */
/* own_symbol.c: find a symbol that a shared object defines itself.
 *
 * dlsym(handle, name) also searches the libraries the object links (libmpi defines every
 * MPI_X), so a hit counts only if it lies inside one of the object's own loaded segments.
 * The segments of the last handle asked about are cached: the loader asks ~400 names
 * per module (dladdr per symbol cost a second of start-up at 100 modules).
 * Used by the core's loader and by `mpilens modules`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "modspec.h"

#define MAX_SEGMENTS 16

struct object_segments {
    void *handle;
    uintptr_t base;
    int count;
    uintptr_t lo[MAX_SEGMENTS], hi[MAX_SEGMENTS];
};

static int collect_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct object_segments *seg = data;
    if (info->dlpi_addr != seg->base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && seg->count < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            seg->lo[seg->count] = info->dlpi_addr + ph->p_vaddr;
            seg->hi[seg->count] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            seg->count++;
        }
    }
    return 1;
}

void *lens_own_symbol(void *handle, const char *name)
{
    static struct object_segments seg;
    if (seg.handle != handle) {
        struct link_map *map = NULL;
        memset(&seg, 0, sizeof seg);
        if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0)
            return NULL;
        seg.base = map->l_addr;
        dl_iterate_phdr(collect_segments, &seg);
        seg.handle = handle;
    }
    uintptr_t addr = (uintptr_t)dlsym(handle, name);
    for (int i = 0; addr && i < seg.count; i++)
        if (addr >= seg.lo[i] && addr < seg.hi[i])
            return (void *)addr;
    return NULL;
}
