/* SPDX-License-Identifier: BSD-3-Clause */
/* dlsym_route.c: MPI functions a program takes from the library by name.
 *
 * Some bindings never link MPI: they dlopen the library and ask it for each function
 * (Julia's MPI.jl, Python's ctypes, a plug-in loader). dlsym(handle, "MPI_Send") then
 * returns the library's own function, which no preloaded tool can come before. So
 * libmpilens defines dlsym: a look-up of MPI_X through a handle that the MPI library
 * answers gets libmpilens's MPI_X instead, which is what the dynamic linker gives a
 * program linked with MPI. PMPI_X through a handle stays the library's own: the one
 * documented way past every tool (the benchmarks' baseline, docs/architecture.md).
 *
 * Every other look-up goes on to glibc's dlsym unchanged. RTLD_DEFAULT and RTLD_NEXT
 * look-ups leave by a jump, so the caller that glibc sees (RTLD_NEXT depends on it) is
 * still the caller's own; an MPI name found that way is already ours (libmpilens comes
 * before the library in the global scope). x86-64 only (the jump is written in assembly);
 * elsewhere dlsym is glibc's and such programs are measured only if they link MPI.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "lens_functions.h"

/* Whether ADDR is in the MPI library, remembered per object (a module's loader asks ~400
 * names of each module through its handle). */
static int in_mpi_library(const void *addr)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        void *base;
        int yes;
    } seen[32];
    static unsigned nseen;
    Dl_info info;
    if (!dladdr(addr, &info))
        return 0;
    pthread_mutex_lock(&lock);
    int yes = -1;
    for (unsigned i = 0; i < nseen && i < 32; i++)
        if (seen[i].base == info.dli_fbase)
            yes = seen[i].yes;
    pthread_mutex_unlock(&lock);
    if (yes >= 0)
        return yes;
    yes = lens_is_mpi_library(info.dli_fname);
    pthread_mutex_lock(&lock);
    unsigned at = nseen++ % 32;
    seen[at].base = info.dli_fbase;
    seen[at].yes = yes;
    pthread_mutex_unlock(&lock);
    return yes;
}

/* libmpilens's own MPI_X. */
static void *own_entry(const char *name)
{
    static void *self;
    if (!self) {
        Dl_info info;
        if (!dladdr((void *)&own_entry, &info) || !info.dli_fname)
            return NULL;
        self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    }
    return self ? lens_real_dlsym(self, name) : NULL;
}

/* A look-up through a handle (the assembly below sends the others straight to glibc). */
LENS_HIDDEN void *lens_dlsym_by_handle(void *handle, const char *name)
{
    void *found = lens_glibc_dlsym(handle, name);
    if (!found || !name || strncmp(name, "MPI_", 4) != 0 || lens_function_index(name) < 0 ||
        !in_mpi_library(found))
        return found;
    void *own = own_entry(name);
    return own ? own : found;
}

#if defined(__x86_64__) && defined(__ELF__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "  endbr64\n"
        "0:\n"
        "  movq lens_glibc_dlsym(%rip), %rax\n"
        "  testq %rax, %rax\n"
        "  jz 2f\n"
        "  leaq 1(%rdi), %r11\n" /* RTLD_NEXT (-1) or RTLD_DEFAULT (0): glibc's */
        "  cmpq $1, %r11\n"
        "  jbe 1f\n"
        "  jmp lens_dlsym_by_handle\n"
        "1:\n"
        "  jmp *%rax\n"
        "2:\n" /* the first call: find glibc's, keeping the arguments */
        "  pushq %rdi\n"
        "  pushq %rsi\n"
        "  subq $8, %rsp\n"
        "  call lens_dlsym_setup\n"
        "  addq $8, %rsp\n"
        "  popq %rsi\n"
        "  popq %rdi\n"
        "  jmp 0b\n"
        ".size dlsym, .-dlsym\n");
#endif
