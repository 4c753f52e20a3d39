/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_program.c: the program, its user and its MPI library (sum_program.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <mpi.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_program.h"
#include "sum_program.h"

/* The main program's NT_GNU_BUILD_ID note, as hex. */
static int build_id_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE &&
            record_build_id_in_notes((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
                                     data))
            break;
    }
    return 1; /* the first object is the program: stop there */
}

/* A Python interpreter's script from its command line. */
static void python_script(char *out, size_t len)
{
    char line[8192];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f)
        fclose(f);
    line[n] = '\0';
    const char *args[256];
    int nargs = 0;
    for (const char *arg = line + strlen(line) + 1;
         arg < line + n && nargs < 256; /* after the interpreter */
         arg += strlen(arg) + 1)
        args[nargs++] = arg;
    record_python_script(args, nargs, out, len);
}

void sum_program_read(struct sum_program *p)
{
    memset(p, 0, sizeof *p);
    ssize_t n = readlink("/proc/self/exe", p->path, sizeof p->path - 1);
    p->path[n > 0 ? n : 0] = '\0';
    dl_iterate_phdr(build_id_of, p->build_id);
    if (record_is_python(p->path))
        python_script(p->script, sizeof p->script);
    p->uid = (long)getuid();
    struct passwd *pw = getpwuid(getuid());
    snprintf(p->user, sizeof p->user, "%s", pw ? pw->pw_name : "");
    gethostname(p->host, sizeof p->host - 1);
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, version = 0, subversion = 0;
    PMPI_Get_library_version(library, &len);
    library[strcspn(library, "\n,")] = '\0'; /* "Open MPI v4.1.4", "MPICH Version: 4.0.2" */
    snprintf(p->library, sizeof p->library, "%s", library);
    PMPI_Get_version(&version, &subversion);
    snprintf(p->mpi_version, sizeof p->mpi_version, "%d.%d", version, subversion);
}
