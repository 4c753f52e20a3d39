/* solo.c: a module alone in the stack, entered without the core's runners.
 *
 * With one module there is nobody to isolate it from, so the levels of dispatch.h have
 * nothing to decide: the application's MPI_X can jump straight to the module's wrapper
 * (the top hop becomes direct, as the library's is), and the module's PMPI_X can go
 * straight to what lies below it (the library, or the core's MPI_Init/MPI_Finalize hooks).
 * That takes the runner and the step off every wrapped call (about 45 instructions).
 *
 * Only a module that says it can be entered this way gets it (it exports
 * mpilens_module_direct, mpilens.h): its wrappers find the call site with
 * mpilens_site(__builtin_return_address(0)) and never rely on the level they run at.
 *
 * The module's PMPI_X references are bound below it by writing the library's address into
 * its GOT slots (the relocations the dynamic linker filled with libmpilens's PMPI_X). The
 * module is entered directly only when every one of them was bound: a PMPI_X reaching the
 * core's step at level 0 from a module's tail call looks like the application's own, so the
 * step cannot route it. (A module that opts in promises to call PMPI_X only through its own
 * references, not through pointers it looks up itself.) Where we do not read the
 * relocations (architectures other than x86-64 and aarch64) the module runs as when stacked.
 *
 * MPILENS_SOLO=off keeps the runners (for comparisons); MPILENS_SOLO=report says, once,
 * that it entered a module directly and how many references it bound.
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

/* glibc relocates the address entries of a loaded object's dynamic section in place on
 * most architectures; where it does not, they are still offsets from the load address. */
static uintptr_t dyn_address(const struct link_map *map, ElfW(Addr) value)
{
    return value < map->l_addr ? map->l_addr + value : value;
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

int lens_bind_module_pmpi(const struct lens_module *mod, const lens_voidfn *below)
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
    struct relro_find relro = {map->l_addr, 0, 0};
    dl_iterate_phdr(find_relro, &relro);
    int written = 0;
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; tables[t] && i < sizes[t] / sizeof(ElfW(Rela)); i++) {
            const ElfW(Rela) *r = &tables[t][i];
            if (!GOT_RELOC(ELF64_R_TYPE(r->r_info)))
                continue;
            const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(r->r_info)];
            const char *name = strtab + sym->st_name;
            if (sym->st_shndx != SHN_UNDEF || strncmp(name, "PMPI_", 5) != 0)
                continue;
            int k = lens_function_index(name + 1); /* the table is by MPI_ name */
            if (k < 0 || !below[k])
                continue;
            if (write_slot(map->l_addr + r->r_offset, below[k], &relro) != 0)
                return -1;
            written++;
        }
    }
    return written;
}
#else
int lens_bind_module_pmpi(const struct lens_module *mod, const lens_voidfn *below)
{
    (void)mod, (void)below;
    return -1;
}
#endif

void lens_solo_setup(lens_voidfn *below)
{
    const char *mode = getenv("MPILENS_SOLO");
    if (lens_nmodules != 1 || (mode && strcmp(mode, "off") == 0))
        return;
    const struct lens_module *mod = &lens_modules[0];
    if (!lens_module_symbol(mod, "mpilens_module_direct"))
        return;
    int bound = lens_bind_module_pmpi(mod, below);
    if (bound < 0)
        return; /* run through the runners: any slot already bound still leads below it */
    for (int k = 0; k < lens_function_count; k++)
        if (mod->wrappers[k])
            lens_slots[k].top = (struct lens_hop){mod->wrappers[k], 0, 1};
    if (mode && strcmp(mode, "report") == 0)
        lens_say("%s alone: entered directly, %d PMPI references bound in its GOT", mod->spec.name,
                 bound);
}
