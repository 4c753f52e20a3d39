/* SPDX-License-Identifier: BSD-3-Clause */
/* got_slots.c: where a loaded module keeps the addresses of the PMPI_X functions it calls
 * (its GOT slots, found through its relocations), and how the core rebinds them. A chained
 * module's mpilens_down_MPI_X references (chain.c) are slots of the same kind, told apart.
 *
 * The dynamic linker fills a module's slots with libmpilens's PMPI_X (the core is
 * preloaded). A module alone in the stack has them rewritten to what lies below it
 * (solo.c); in a stack of several, each module's to the step of its own level (levels.c).
 * The slots' addresses also tell whether a module's MPI_X only jumps to its PMPI_X
 * (forwarders.c). Read on x86-64 and aarch64, whose relocations we know; elsewhere nothing
 * is found and nothing is rebound.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

#if defined(__x86_64__)
#define GOT_RELOC(type) ((type) == R_X86_64_GLOB_DAT || (type) == R_X86_64_JUMP_SLOT)
#elif defined(__aarch64__)
#define GOT_RELOC(type) ((type) == R_AARCH64_GLOB_DAT || (type) == R_AARCH64_JUMP_SLOT)
#endif

#ifdef GOT_RELOC
/* glibc relocates the address entries of a loaded object's dynamic section in place on
 * most architectures; where it does not, they are still offsets from the load address. */
static uintptr_t dyn_address(const struct link_map *map, ElfW(Addr) value)
{
    return value < map->l_addr ? map->l_addr + value : value;
}

int lens_module_pmpi_slots(const struct lens_module *mod, lens_slot_fn each, void *data)
{
    struct link_map *map = NULL;
    if (dlinfo(mod->handle, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return -1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) * tables[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    int plt_is_rela = 1;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB:
            symtab = (const ElfW(Sym) *)dyn_address(map, d->d_un.d_ptr);
            break;
        case DT_STRTAB:
            strtab = (const char *)dyn_address(map, d->d_un.d_ptr);
            break;
        case DT_RELA:
            tables[0] = (const ElfW(Rela) *)dyn_address(map, d->d_un.d_ptr);
            break;
        case DT_RELASZ:
            sizes[0] = d->d_un.d_val;
            break;
        case DT_JMPREL:
            tables[1] = (const ElfW(Rela) *)dyn_address(map, d->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            sizes[1] = d->d_un.d_val;
            break;
        case DT_PLTREL:
            plt_is_rela = d->d_un.d_val == DT_RELA;
            break;
        }
    }
    if (!symtab || !strtab || !plt_is_rela)
        return -1;
    int found = 0;
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; tables[t] && i < sizes[t] / sizeof(ElfW(Rela)); i++) {
            const ElfW(Rela) *r = &tables[t][i];
            if (!GOT_RELOC(ELF64_R_TYPE(r->r_info)))
                continue;
            const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(r->r_info)];
            const char *name = strtab + sym->st_name;
            int k, down = 0;
            if (sym->st_shndx == SHN_UNDEF && strncmp(name, "PMPI_", 5) == 0)
                k = lens_function_index(name + 1); /* the table is by MPI_ name */
            else if (strncmp(name, LENS_DOWN_PREFIX, strlen(LENS_DOWN_PREFIX)) == 0)
                down = 1, k = lens_function_index(name + strlen(LENS_DOWN_PREFIX));
            else
                continue;
            if (k < 0)
                continue;
            if (each(k, map->l_addr + r->r_offset, down, data) != 0)
                return -1;
            found++;
        }
    }
    return found;
}

struct relro_find {
    uintptr_t base, lo, hi;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct relro_find *f = data;
    if (info->dlpi_addr != f->base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            /* what glibc made read-only: whole pages, the last partial one left writable */
            uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
            uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            f->lo = start & ~(page - 1);
            f->hi = (start + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
        }
    return 1;
}

/* Writes ADDRESS into the GOT slot at SLOT (inside RELRO: made writable for the write);
 * returns 0, or -1 if it could not. */
static int write_slot(uintptr_t slot, lens_voidfn address, const struct relro_find *relro)
{
    uintptr_t page = slot & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    size_t len = slot + sizeof(void *) - page; /* the slot's page(s) */
    int protected = slot >= relro->lo && slot < relro->hi;
    if (protected && mprotect((void *)page, len, PROT_READ | PROT_WRITE) != 0)
        return -1;
    *(lens_voidfn *)slot = address;
    if (protected)
        mprotect((void *)page, len, PROT_READ);
    return 0;
}

struct binding {
    const lens_voidfn *own, *down;
    struct relro_find relro;
    int written;
};

static int bind_slot(int k, uintptr_t slot, int down, void *data)
{
    struct binding *b = data;
    lens_voidfn to = down ? b->down[k] : b->own[k];
    if (!to)
        return 0;
    b->written++;
    return write_slot(slot, to, &b->relro);
}

int lens_bind_module_slots(const struct lens_module *mod, const lens_voidfn *own,
                           const lens_voidfn *down)
{
    struct link_map *map = NULL;
    if (dlinfo(mod->handle, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return -1;
    struct binding b = {own, down, {map->l_addr, 0, 0}, 0};
    dl_iterate_phdr(find_relro, &b.relro);
    return lens_module_pmpi_slots(mod, bind_slot, &b) < 0 ? -1 : b.written;
}

int lens_bind_module_pmpi(const struct lens_module *mod, const lens_voidfn *below)
{
    return lens_bind_module_slots(mod, below, below);
}
#else
int lens_module_pmpi_slots(const struct lens_module *mod, lens_slot_fn each, void *data)
{
    (void)mod, (void)each, (void)data;
    return -1;
}

int lens_bind_module_slots(const struct lens_module *mod, const lens_voidfn *own,
                           const lens_voidfn *down)
{
    (void)mod, (void)own, (void)down;
    return -1;
}

int lens_bind_module_pmpi(const struct lens_module *mod, const lens_voidfn *below)
{
    (void)mod, (void)below;
    return -1;
}
#endif
