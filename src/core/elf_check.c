/* SPDX-License-Identifier: BSD-3-Clause */
/* elf_check.c: a module file checked before dlopen. The dynamic loader maps a shared
 * object by its program headers and reads what they promise: a file cut short (a copy or
 * a build interrupted) makes that read fault (SIGBUS) inside dlopen, in every rank. Here
 * the headers are read with ordinary file reads and held against the file's size.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "modspec.h"

int lens_elf_problem(const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        if (f)
            fclose(f);
        return 0; /* dlopen says why */
    }
    Elf64_Ehdr eh;
    int bad = 0;
    if (fread(&eh, 1, sizeof eh, f) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64) {
        fclose(f);
        return 0; /* not a 64-bit ELF file: dlopen refuses it cleanly */
    }
    unsigned long long size = (unsigned long long)st.st_size, need = 0;
    if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
        (unsigned long long)eh.e_phoff + (unsigned long long)eh.e_phnum * sizeof(Elf64_Phdr) >
            size)
        bad = 1;
    for (int i = 0; !bad && i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph), SEEK_SET) != 0 ||
            fread(&ph, 1, sizeof ph, f) != sizeof ph) {
            bad = 1;
            break;
        }
        if (ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) {
            unsigned long long end = (unsigned long long)ph.p_offset + ph.p_filesz;
            need = end > need ? end : need;
        }
    }
    fclose(f);
    if (!bad && need <= size)
        return 0;
    snprintf(err, n,
             "%s: truncated or damaged shared object (%llu bytes, its headers need %llu); "
             "rebuild or reinstall it",
             path, size, need);
    return 1;
}
