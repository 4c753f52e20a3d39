/* SPDX-License-Identifier: BSD-3-Clause */
/* run_program.c: the program a run's command line ran, and its build id (run_program.h). */
#define _GNU_SOURCE
#include "run_program.h"

#include "find_command.h"
#include "record_program.h"

#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void run_program_of(const char *command, char *path, size_t plen, char *script, size_t slen)
{
    char line[4096];
    snprintf(line, sizeof line, "%s", command);
    char *save = NULL, *word = strtok_r(line, " ", &save);
    path[0] = script[0] = '\0';
    if (!word)
        return;
    char real[PATH_MAX], found[PATH_MAX]; /* the program as the launcher found it */
    const char *program = lens_find_command(word, found, sizeof found) ? found : word;
    snprintf(path, plen, "%s", realpath(program, real) ? real : program);
    if (!record_is_python(path))
        return;
    const char *args[256];
    int n = 0;
    for (char *arg = strtok_r(NULL, " ", &save); arg && n < 256; arg = strtok_r(NULL, " ", &save))
        args[n++] = arg;
    record_python_script(args, n, script, slen);
}

void run_program_build_id(const char *path, char *out)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    Elf64_Ehdr eh;
    if (!f)
        return;
    if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (int i = 0; i < eh.e_phnum && !out[0]; i++) {
            Elf64_Phdr ph;
            if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph), SEEK_SET) != 0 ||
                fread(&ph, sizeof ph, 1, f) != 1)
                break;
            if (ph.p_type != PT_NOTE || ph.p_filesz > 65536)
                continue;
            unsigned char notes[65536];
            if (fseek(f, (long)ph.p_offset, SEEK_SET) != 0 ||
                fread(notes, 1, ph.p_filesz, f) != ph.p_filesz)
                break;
            record_build_id_in_notes(notes, ph.p_filesz, out);
        }
    }
    fclose(f);
}
