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

#include "sum_program.h"

/* The main program's NT_GNU_BUILD_ID note, as hex. */
static int build_id_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    char *out = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *at = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = at + ph->p_memsz;
        while (at + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)at;
            const char *name = at + sizeof *n;
            const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                n->n_descsz <= 32) {
                for (unsigned k = 0; k < n->n_descsz; k++)
                    sprintf(out + 2 * k, "%02x", desc[k]);
                return 1;
            }
            at = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1; /* the first object is the program: stop there */
}

/* A Python interpreter's script from its command line: the first argument that is not an
 * option ("-m MODULE" and "-c" as such). */
static void python_script(char *out, size_t len)
{
    char line[8192];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f)
        fclose(f);
    line[n] = '\0';
    const char *arg = line + strlen(line) + 1; /* after the interpreter */
    while (arg < line + n) {
        if (strcmp(arg, "-m") == 0 && arg + 3 < line + n) {
            snprintf(out, len, "-m %s", arg + 3);
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
            arg += strlen(arg) + 1;
        arg += strlen(arg) + 1;
    }
}

void sum_program_read(struct sum_program *p)
{
    memset(p, 0, sizeof *p);
    ssize_t n = readlink("/proc/self/exe", p->path, sizeof p->path - 1);
    p->path[n > 0 ? n : 0] = '\0';
    dl_iterate_phdr(build_id_of, p->build_id);
    const char *base = strrchr(p->path, '/');
    base = base ? base + 1 : p->path;
    if (strncmp(base, "python", 6) == 0)
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
