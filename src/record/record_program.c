/* SPDX-License-Identifier: BSD-3-Clause */
/* record_program.c: the program's build id and Python script (record_program.h). */
#define _GNU_SOURCE
#include "record_program.h"

#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int record_build_id_in_notes(const void *notes, size_t len, char *out)
{
    const unsigned char *at = notes;
    for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= len;) {
        Elf64_Nhdr n; /* the same layout as Elf32_Nhdr: three 32-bit words */
        memcpy(&n, at + off, sizeof n);
        size_t name = off + sizeof n, desc = name + ((n.n_namesz + 3) & ~(size_t)3);
        if (desc > len || n.n_descsz > len - desc)
            return 0;
        if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && memcmp(at + name, "GNU", 4) == 0 &&
            n.n_descsz <= (RECORD_BUILD_ID_HEX - 1) / 2) {
            for (unsigned k = 0; k < n.n_descsz; k++)
                snprintf(out + 2 * k, 3, "%02x", at[desc + k]);
            out[2 * n.n_descsz] = '\0';
            return 1;
        }
        off = desc + ((n.n_descsz + 3) & ~(size_t)3);
    }
    return 0;
}

int record_is_python(const char *program)
{
    const char *base = strrchr(program, '/');
    return strncmp(base ? base + 1 : program, "python", 6) == 0;
}

void record_python_script(const char *const *args, int n, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *arg = args[i];
        if (strcmp(arg, "-m") == 0) {
            snprintf(out, len, "-m %s", i + 1 < n ? args[i + 1] : "");
            return;
        }
        if (strcmp(arg, "-c") == 0) {
            snprintf(out, len, "-c");
            return;
        }
        if (arg[0] != '-') {
            char real[PATH_MAX];
            snprintf(out, len, "%s", realpath(arg, real) ? real : arg);
            return;
        }
        if (strcmp(arg, "-W") == 0 || strcmp(arg, "-X") == 0) /* options with a value */
            i++;
    }
}
