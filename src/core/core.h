/* SPDX-License-Identifier: BSD-3-Clause */
/* core.h: state shared by the files of the core (boot, loader, services, run hooks).
 * Nothing here is visible outside libmpilens.
 */
#ifndef LENS_CORE_H
#define LENS_CORE_H

#include "dispatch.h"
#include "modspec.h"
#include "mpilens.h"

#include "lens_hidden.h"

struct lens_module {
    struct lens_modspec spec;
    char path[4096];
    void *handle;
    lens_voidfn *wrappers; /* per function: the module's own MPI_X, or NULL */
    struct mpilens_module_args args;
    uintptr_t text_lo, text_span; /* its code (where its own MPI_ calls come from) */
};

/* The executable segment of the loaded object that holds ADDR (lo and span 0 if none). */
struct code_range {
    uintptr_t addr, lo, span;
};
LENS_HIDDEN struct code_range lens_code_around(const void *addr);
/* Fortran call sites (fortran_sites.c): the bindings' code, found at boot; the stored site,
 * or the application's return address above it when the site is inside a binding. */
extern LENS_HIDDEN int lens_nbindings;
LENS_HIDDEN void lens_find_bindings(void);
LENS_HIDDEN void *lens_fortran_caller(void *site);

/* Python call sites (python_sites.c): the extension modules' code, found at boot; the site
 * of the Python line that called the extension when SITE lies in one, else SITE. */
extern LENS_HIDDEN int lens_npython;
LENS_HIDDEN void lens_find_python(void);
LENS_HIDDEN void *lens_python_caller(void *site);

extern LENS_HIDDEN struct lens_module *lens_modules; /* lens_modules[0] is level 1 */
extern LENS_HIDDEN int lens_nmodules;
extern LENS_HIDDEN char lens_libdir[4096]; /* directory of libmpilens.so */
/* The loaded MPI library (find_library.c): a handle on the loaded object other than SELF
 * that defines PMPI_Init itself, its path in PATH; NULL if there is none. Whether the
 * object loaded from PATH is such a library. */
LENS_HIDDEN void *lens_mpi_library_handle(const char *self, char *path, size_t len);
LENS_HIDDEN int lens_is_mpi_library(const char *path);
/* glibc's own dlsym (glibc_dlsym.c; libmpilens defines dlsym: dlsym_route.c), found on
 * first use; lens_glibc_dlsym is NULL until then. */
typedef void *(*lens_dlsym_fn)(void *, const char *);
extern LENS_HIDDEN lens_dlsym_fn lens_glibc_dlsym;
LENS_HIDDEN lens_dlsym_fn lens_dlsym_setup(void);
LENS_HIDDEN void *lens_real_dlsym(void *handle, const char *name);

/* Loads spec's .so and finds the MPI functions it wraps. 0, or -1 and err. */
LENS_HIDDEN int lens_module_load(struct lens_module *mod, char *err);
/* Address of name if the module's own .so defines it (not a library it links), or NULL. */
LENS_HIDDEN void *lens_module_symbol(const struct lens_module *mod, const char *name);
/* The index of the module whose code holds ADDR, or -1. */
LENS_HIDDEN int lens_module_at(uintptr_t addr);
/* Prints "mpilens: MESSAGE" once per job (rank 0 by the launcher's environment). */
LENS_HIDDEN void lens_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message like lens_say and ends the process with status 2. */
LENS_HIDDEN void lens_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* This process's rank from the launcher's environment, or -1 if it is not known. */
LENS_HIDDEN int lens_env_rank(void);
/* The MPI library's own function NAME (resolved at boot), for the core's own MPI calls, which
 * no module sees (run_hooks.c); with the types of those the core makes in several files. */
LENS_HIDDEN lens_voidfn lens_library(const char *name);
typedef int (*lens_bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*lens_rank_fn)(MPI_Comm, int *);
/* The output directory DIR seen by every rank or not (output_share.c): checked at MPI_Init
 * (collective); at MPI_Finalize the files of the ranks that do not see rank 0's copy are
 * brought to it (collective). */
LENS_HIDDEN void lens_output_share_check(const char *dir);
LENS_HIDDEN void lens_output_share_finish(const char *dir);
/* Replaces the library functions of MPI_Init/Init_thread/Finalize with the core's hooks. */
LENS_HIDDEN void lens_hooks_install(lens_voidfn *bottom);
/* A launch that does not match the MPI library, said in one line (launch_check.c): before
 * MPI_Init, and after it with MPI_COMM_WORLD's SIZE. */
LENS_HIDDEN void lens_launch_check_before_init(void);
LENS_HIDDEN void lens_launch_check_after_init(int size);
/* A single module that allows it is entered without runners and bound to BELOW (solo.c). */
LENS_HIDDEN void lens_solo_setup(lens_voidfn *below);
/* MOD's PMPI_X references (got_slots.c): EACH(k, slot, DOWN, DATA) for every GOT slot that
 * holds the address of a PMPI_X (function k; a function may have two: called, and taken by
 * address), or (DOWN = 1) of its pass-down mpilens_down_MPI_X (chain.c); returns how many,
 * or -1 if the relocations could not be read (x86-64 and aarch64 only) or EACH returned
 * non-zero. */
#define LENS_DOWN_PREFIX "mpilens_down_"
typedef int (*lens_slot_fn)(int k, uintptr_t slot, int down, void *data);
LENS_HIDDEN int lens_module_pmpi_slots(const struct lens_module *mod, lens_slot_fn each,
                                       void *data);
/* Binds MOD's PMPI_X references (its GOT slots) to BELOW[X] where BELOW[X] is not NULL;
 * returns how many slots it wrote, or -1 if one could not be written or the relocations
 * could not be read (x86-64 and aarch64 only). */
LENS_HIDDEN int lens_bind_module_pmpi(const struct lens_module *mod, const lens_voidfn *below);
/* The same with its PMPI_X references bound to OWN[X] and its pass-downs to DOWN[X]. */
LENS_HIDDEN int lens_bind_module_slots(const struct lens_module *mod, const lens_voidfn *own,
                                       const lens_voidfn *down);
/* MOD's MPI_X wrappers that only jump to its PMPI_X (forwarders.c) taken out of
 * MOD->wrappers: the call goes past the module as if it did not wrap X. */
LENS_HIDDEN void lens_drop_forwarders(struct lens_module *mod);
/* In a stack of several modules, each module's PMPI_X references bound to the step of its
 * own level (levels.c). */
LENS_HIDDEN void lens_levels_setup(void);
/* In a stack whose modules all allow direct entry, a function only one module wraps is
 * entered directly and its PMPI_X bound to BELOW (sole_wrappers.c). */
LENS_HIDDEN void lens_sole_wrappers_setup(const lens_voidfn *below);
/* A stack of chained modules calls each module from the one above it, the last one's
 * pass-downs bound to BELOW (chain.c); returns 1 if it did, 0 if the stack runs through
 * the levels. */
LENS_HIDDEN int lens_chain_setup(const lens_voidfn *below);
/* In a chained stack: whether ADDR lies in a module's code (a module below another sees
 * such return addresses); the site range for the module whose code holds CALLER, which
 * then gets the call site stored on entry to each function it wraps if it is below
 * another module for one of them (chain.c). */
LENS_HIDDEN int lens_chain_in_module(uintptr_t addr);
LENS_HIDDEN void lens_chain_site_range(uintptr_t caller, uintptr_t *lo, uintptr_t *span);

#endif
