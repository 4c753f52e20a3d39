/* SPDX-License-Identifier: BSD-3-Clause */
/* code_range.c: the executable segment of the loaded object that holds an address (the MPI
 * library's code, libmpilens's own, a module's: boot.c, loader.c, fortran_sites.c).
 */
#define _GNU_SOURCE
#include <link.h>

#include "core.h"

/* dl_iterate_phdr callback: the executable segment of the object holding range->addr. */
static int find_text_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct code_range *range = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && range->addr - lo < ph->p_memsz) {
            range->lo = lo;
            range->span = ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

struct code_range lens_code_around(const void *addr)
{
    struct code_range range = {(uintptr_t)addr, 0, 0};
    dl_iterate_phdr(find_text_segment, &range);
    return range;
}
