/* SPDX-License-Identifier: BSD-3-Clause */
/* boot.c: what happens when libmpilens is loaded, before main(), or at the first MPI call.
 *
 * In a process that has an MPI library: resolve every PMPI_X of the library, note where
 * the library's code lies (to tell its own PMPI_ calls from a module's), load the
 * configured modules in stack order, and fill the dispatch tables of dispatch.h. A program
 * linked with MPI boots before main(). A process without an MPI library at that moment
 * (mpirun, which inherits LD_PRELOAD too; an interpreter whose MPI binding will dlopen the
 * library later; a program that never uses MPI) is left alone: nothing is read or loaded
 * until its first MPI call, which boots then (find_library.c finds a library loaded
 * RTLD_LOCAL). A configuration error stops the process here, before the application's
 * first MPI call does anything.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"
#include "mpi_objects.h"

LENS_HIDDEN __thread struct lens_context lens_ctx __attribute__((tls_model("initial-exec")));
LENS_HIDDEN __thread void *lens_caller __attribute__((tls_model("initial-exec")));
LENS_HIDDEN uintptr_t lens_lib_lo, lens_lib_span;
LENS_HIDDEN uintptr_t lens_self_lo, lens_self_span;
struct lens_module *lens_modules;
int lens_nmodules;
char lens_libdir[4096];
static char self_path[4096]; /* libmpilens.so itself */
static char mpi_path[4096];  /* the MPI library found (said when it is not measured) */

enum { NOT_YET, STARTING, DONE, NO_LIBRARY_YET };
static int boot_state;
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t boot_thread; /* the thread that is starting (while STARTING) */
static double boot_seconds;

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void *mpilens_site(void *return_address)
{
    uintptr_t ra = (uintptr_t)return_address;
    void *site = ra - lens_self_lo < lens_self_span || lens_chain_in_module(ra)
                     ? lens_caller /* entered through a runner, or below a chained module:
                                      the site stored on entry */
                     : return_address;
    if (LENS_UNLIKELY(lens_npython > 0))
        site = lens_python_caller(site);
    if (LENS_UNLIKELY(lens_nbindings > 0))
        return lens_fortran_caller(site);
    return site;
}

void mpilens_site_range(unsigned long *lo, unsigned long *span)
{
    uintptr_t l, s;
    lens_chain_site_range((uintptr_t)__builtin_return_address(0), &l, &s);
    int every = lens_nbindings > 0 || lens_npython > 0; /* a binding's sites need naming */
    *lo = every ? 0 : l;
    *span = every ? ~0ul : s;
}

void **mpilens_caller_slot(void)
{
    return lens_nbindings > 0 || lens_npython > 0 ? NULL : &lens_caller;
}

void *mpilens_caller(void)
{
    void *site = lens_caller;
    if (LENS_UNLIKELY(lens_npython > 0))
        site = lens_python_caller(site); /* a call from Python: its line */
    if (LENS_UNLIKELY(lens_nbindings > 0))
        return lens_fortran_caller(site); /* a Fortran call: the application's line */
    return site;
}

double mpilens_boot_seconds(void)
{
    return boot_seconds;
}

static void find_own_directory(void)
{
    Dl_info info;
    if (dladdr((void *)&lens_boot, &info) && info.dli_fname) {
        snprintf(self_path, sizeof self_path, "%s", info.dli_fname);
        snprintf(lens_libdir, sizeof lens_libdir, "%s", info.dli_fname);
        char *slash = strrchr(lens_libdir, '/');
        if (slash)
            *slash = '\0';
        else
            strcpy(lens_libdir, ".");
    }
}

/* The library's own symbol NAME: through HANDLE when the library was found among the
 * loaded objects, else the next definition after libmpilens in the global scope. */
static void *library_symbol(void *handle, const char *name)
{
    return lens_real_dlsym(handle ? handle : RTLD_NEXT, name);
}

/* Why the library found cannot be measured (another MPI than the one mpilens was built
 * for: its handles and constants mean other things), or "". */
static char foreign[1024];

#ifdef OPEN_MPI
#define BUILT_FOR "Open MPI"
#else
#define BUILT_FOR "MPICH"
#endif

/* Resolves the library's functions; returns 0 if this process has no MPI library. Before
 * main() only the global scope is asked (a linked or preloaded library); at the first MPI
 * call (SEARCH) a library an interpreter's binding loaded RTLD_LOCAL is found too. A
 * library of another MPI than the one mpilens was built for is resolved too (its calls go
 * straight to it), with the reason in `foreign`. */
static int resolve_library(int search)
{
    void *handle = NULL;
    mpi_path[0] = '\0';
    if (!library_symbol(NULL, "PMPI_Init")) {
        if (!search)
            return 0;
        handle = lens_mpi_library_handle(self_path, mpi_path, sizeof mpi_path);
        if (!handle)
            return 0;
    }
    for (int k = 0; k < lens_function_count; k++) {
        char pname[128];
        snprintf(pname, sizeof pname, "P%s", lens_function_names[k]);
        void *fn = library_symbol(handle, pname);
        if (!fn)
            fn = library_symbol(handle, lens_function_names[k]);
        lens_slots[k].real = (lens_voidfn)fn;
    }
    int init = lens_function_index("MPI_Init");
    if (init < 0 || !lens_slots[init].real)
        return 0;
    Dl_info info;
    if (!mpi_path[0] && dladdr((void *)lens_slots[init].real, &info) && info.dli_fname)
        snprintf(mpi_path, sizeof mpi_path, "%s", info.dli_fname);
    /* Objects through the global scope when the library is there: a program linked with
     * it may hold copies of them (copy relocations) that the library itself then uses. */
    const char *missing = NULL;
    int open_mpi = library_symbol(handle, "ompi_mpi_comm_world") != NULL;
    foreign[0] = '\0';
    if (open_mpi != (strcmp(BUILT_FOR, "Open MPI") == 0) ||
        lens_mpi_objects_resolve(lens_real_dlsym, handle ? handle : RTLD_DEFAULT, &missing) != 0)
        snprintf(foreign, sizeof foreign,
                 "this program uses %s (%s%s%s) and mpilens was built for " BUILT_FOR "; its "
                 "MPI calls go straight to the library (build mpilens against it: "
                 "scripts/build.sh %s)",
                 open_mpi ? "Open MPI" : "another MPI than Open MPI", mpi_path,
                 missing ? ", which has no " : "", missing ? missing : "",
                 open_mpi ? "openmpi" : "mpich");
    struct code_range lib = lens_code_around((void *)lens_slots[init].real);
    struct code_range self = lens_code_around((void *)&lens_boot);
    lens_lib_lo = lib.lo;
    lens_lib_span = lib.span;
    lens_self_lo = self.lo;
    lens_self_span = self.span;
    lens_find_bindings();
    lens_find_python();
    return 1;
}

/* Every call goes straight to the library (used while modules load, and with none); a
 * function the library lacks keeps its pre-boot trampoline, which says so if called. */
static void route_all_to_library(void)
{
    for (int k = 0; k < lens_function_count; k++)
        if (lens_slots[k].real)
            lens_slots[k].top = (struct lens_hop){lens_slots[k].real, 0, 1};
}

/* hops[l] for each function: the first module after level l that wraps it, or the library. */
static void build_tables(lens_voidfn *bottom)
{
    int n = lens_nmodules;
    struct lens_hop *all = calloc((size_t)lens_function_count * (n + 1), sizeof *all);
    if (!all)
        lens_die("out of memory building the dispatch tables");
    for (int k = 0; k < lens_function_count; k++) {
        struct lens_hop *hops = all + (size_t)k * (n + 1);
        struct lens_hop next = {bottom[k], 0, 1};
        for (int level = n; level >= 0; level--) {
            hops[level] = next;
            lens_voidfn wrapper = level > 0 ? lens_modules[level - 1].wrappers[k] : (lens_voidfn)0;
            if (wrapper)
                next = (struct lens_hop){wrapper, level, 0};
        }
        lens_slots[k].hops = hops;
        lens_slots[k].top = hops[0];
    }
}

static void load_modules(void)
{
    char err[LENS_ERR_LEN];
    struct lens_modlist list;
    if (lens_modlist_configured(&list, err) != 0)
        lens_die("%s", err);
    lens_nmodules = list.count;
    lens_modules = calloc(list.count ? list.count : 1, sizeof *lens_modules);
    for (int i = 0; i < list.count; i++) {
        struct lens_module *mod = &lens_modules[i];
        mod->spec = list.items[i];
        mod->args.level = i + 1;
        if (lens_module_find(&mod->spec, lens_libdir, mod->path, sizeof mod->path, err) != 0 ||
            lens_module_load(mod, err) != 0)
            lens_die("%s", err);
    }
    free(list.items); /* the specs now belong to lens_modules */
}

/* The module's key=value arguments against the ones it declares; an unknown key stops
 * the run with one line. */
static void check_module_arguments(const struct lens_module *mod)
{
    char err[LENS_ERR_LEN];
    if (lens_modspec_check_arguments(&mod->spec,
                                     lens_module_symbol(mod, "mpilens_module_arguments"), err))
        lens_die("%s", err);
    mpilens_module_check_fn check =
        (mpilens_module_check_fn)lens_module_symbol(mod, "mpilens_module_check");
    for (int k = 0; check && k < mod->spec.nargs; k++)
        if (check(mod->spec.keys[k], mod->spec.values[k], err, sizeof err) != 0)
            lens_die("%s", err);
}

static void call_module_inits(void)
{
    for (int i = 0; i < lens_nmodules; i++)
        check_module_arguments(&lens_modules[i]);
    for (int i = 0; i < lens_nmodules; i++) {
        struct lens_module *mod = &lens_modules[i];
        mpilens_module_init_fn init =
            (mpilens_module_init_fn)lens_module_symbol(mod, "mpilens_module_init");
        if (init && init(&mod->args) != 0)
            lens_die("module '%s' (%s) refused to start; see its message above", mod->spec.name,
                     mod->path);
    }
}

/* Boots (SEARCH: at an MPI call, when the library may have been dlopened since). */
static void boot(int search)
{
    int state = __atomic_load_n(&boot_state, __ATOMIC_ACQUIRE);
    if (state == DONE || (state == STARTING && pthread_equal(boot_thread, pthread_self())))
        return; /* booted, or a call made while this thread boots (lens_preboot says it) */
    pthread_mutex_lock(&boot_lock);
    if (boot_state == DONE || (boot_state == NO_LIBRARY_YET && !search)) {
        pthread_mutex_unlock(&boot_lock);
        return;
    }
    boot_thread = pthread_self();
    __atomic_store_n(&boot_state, STARTING, __ATOMIC_RELEASE);
    double start = seconds_now();
    find_own_directory();
    if (!resolve_library(search)) {
        /* not an MPI process (yet): stay out of the way */
        __atomic_store_n(&boot_state, NO_LIBRARY_YET, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&boot_lock);
        return;
    }
    route_all_to_library();
    if (foreign[0]) { /* never fail the application: it runs unmeasured, said once */
        lens_say("nothing measured: %s", foreign);
        __atomic_store_n(&boot_state, DONE, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&boot_lock);
        return;
    }
    load_modules();
    lens_voidfn *bottom = malloc(lens_function_count * sizeof *bottom);
    for (int k = 0; k < lens_function_count; k++)
        bottom[k] = lens_slots[k].real;
    lens_hooks_install(bottom);
    build_tables(bottom);
    lens_solo_setup(bottom);
    if (!lens_chain_setup(bottom)) {
        lens_levels_setup();
        lens_sole_wrappers_setup(bottom);
    }
    free(bottom);
    call_module_inits();
    boot_seconds = seconds_now() - start;
    __atomic_store_n(&boot_state, DONE, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&boot_lock);
}

void lens_boot(void)
{
    boot(1);
}

void lens_preboot(int k)
{
    lens_voidfn trampoline = lens_slots[k].top.fn;
    boot(1);
    if (lens_slots[k].top.fn == trampoline)
        lens_die("%s was called%s: no MPI library to pass it to (is the program linked "
                 "with MPI?)",
                 lens_function_names[k],
                 boot_state == STARTING ? " while mpilens was starting" : "");
}

__attribute__((constructor)) static void lens_constructor(void)
{
    boot(0);
}
