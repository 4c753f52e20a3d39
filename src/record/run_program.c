/* run_program.c: the program a run's command line ran, and its build id (run_program.h). */
#define _GNU_SOURCE
#include "run_program.h"

#include "find_command.h"

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
    const char *base = strrchr(path, '/');
    if (strncmp(base ? base + 1 : path, "python", 6) != 0)
        return;
    for (char *arg = strtok_r(NULL, " ", &save); arg; arg = strtok_r(NULL, " ", &save)) {
        if (strcmp(arg, "-m") == 0) {
            char *module = strtok_r(NULL, " ", &save);
            snprintf(script, slen, "-m %s", module ? module : "");
            return;
        }
        if (strcmp(arg, "-c") == 0) {
            snprintf(script, slen, "-c");
            return;
        }
        if (arg[0] != '-') {
            snprintf(script, slen, "%s", realpath(arg, real) ? real : arg);
            return;
        }
        if (strcmp(arg, "-W") == 0 || strcmp(arg, "-X") == 0) /* options with a value */
            strtok_r(NULL, " ", &save);
    }
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
            for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= ph.p_filesz;) {
                const Elf64_Nhdr *n = (const Elf64_Nhdr *)(notes + at);
                size_t name = at + sizeof *n, desc = name + ((n->n_namesz + 3) & ~3u);
                if (desc + n->n_descsz > ph.p_filesz)
                    break;
                if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                    memcmp(notes + name, "GNU", 4) == 0 && n->n_descsz <= 40) {
                    for (unsigned k = 0; k < n->n_descsz; k++)
                        sprintf(out + 2 * k, "%02x", notes[desc + k]);
                    break;
                }
                at = desc + ((n->n_descsz + 3) & ~3u);
            }
        }
    }
    fclose(f);
}
