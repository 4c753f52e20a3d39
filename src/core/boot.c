/* boot.c: what happens when libmpilens is loaded, before main().
 *
 * In a process that has an MPI library (not in mpirun, which inherits LD_PRELOAD too):
 * resolve every PMPI_X of the library, note where the library's code lies (to tell its
 * own PMPI_ calls from a module's), load the configured modules in stack order, and fill
 * the dispatch tables of dispatch.h. Any error stops the process here, before the
 * application does any work.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "dispatch.h"
#include "lens_functions.h"

LENS_HIDDEN __thread struct lens_context lens_ctx __attribute__((tls_model("initial-exec")));
LENS_HIDDEN __thread void *lens_caller __attribute__((tls_model("initial-exec")));
LENS_HIDDEN uintptr_t lens_lib_lo, lens_lib_span;
LENS_HIDDEN uintptr_t lens_self_lo, lens_self_span;
struct lens_module *lens_modules;
int lens_nmodules;
char lens_libdir[4096];

static int boot_state; /* 0 not yet, 1 in progress, 2 done */
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
    if (LENS_UNLIKELY(lens_nbindings > 0))
        return lens_fortran_caller(site);
    return site;
}

void mpilens_site_range(unsigned long *lo, unsigned long *span)
{
    uintptr_t l, s;
    lens_chain_site_range((uintptr_t)__builtin_return_address(0), &l, &s);
    *lo = lens_nbindings > 0 ? 0 : l;
    *span = lens_nbindings > 0 ? ~0ul : s;
}

void **mpilens_caller_slot(void)
{
    return lens_nbindings > 0 ? NULL : &lens_caller;
}

void *mpilens_caller(void)
{
    if (LENS_UNLIKELY(lens_nbindings > 0))
        return lens_fortran_caller(lens_caller); /* a Fortran call: the application's line */
    return lens_caller;
}

double mpilens_boot_seconds(void)
{
    return boot_seconds;
}

static void find_own_directory(void)
{
    Dl_info info;
    if (dladdr((void *)&lens_boot, &info) && info.dli_fname) {
        snprintf(lens_libdir, sizeof lens_libdir, "%s", info.dli_fname);
        char *slash = strrchr(lens_libdir, '/');
        if (slash)
            *slash = '\0';
        else
            strcpy(lens_libdir, ".");
    }
}

/* Resolves the library's functions; returns 0 if this process has no MPI library. */
static int resolve_library(void)
{
    for (int k = 0; k < lens_function_count; k++) {
        char pname[128];
        snprintf(pname, sizeof pname, "P%s", lens_function_names[k]);
        void *fn = dlsym(RTLD_NEXT, pname);
        if (!fn)
            fn = dlsym(RTLD_NEXT, lens_function_names[k]);
        lens_slots[k].real = (lens_voidfn)fn;
    }
    int init = lens_function_index("MPI_Init");
    if (init < 0 || !lens_slots[init].real)
        return 0;
    struct code_range lib = lens_code_around((void *)lens_slots[init].real);
    struct code_range self = lens_code_around((void *)&lens_boot);
    lens_lib_lo = lib.lo;
    lens_lib_span = lib.span;
    lens_self_lo = self.lo;
    lens_self_span = self.span;
    lens_find_bindings();
    return 1;
}

/* Every call goes straight to the library (used while modules load, and with none). */
static void route_all_to_library(void)
{
    for (int k = 0; k < lens_function_count; k++) {
        lens_slots[k].top = (struct lens_hop){lens_slots[k].real, 0, 1};
    }
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

void lens_boot(void)
{
    if (boot_state != 0)
        return;
    boot_state = 1;
    double start = seconds_now();
    find_own_directory();
    if (!resolve_library()) {
        boot_state = 2; /* not an MPI process: stay out of the way */
        return;
    }
    route_all_to_library();
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
    boot_state = 2;
}

void lens_preboot(int k)
{
    lens_voidfn trampoline = lens_slots[k].top.fn;
    lens_boot();
    if (lens_slots[k].top.fn == trampoline)
        lens_die("%s was called%s: no MPI library to pass it to (is the program linked "
                 "with MPI?)",
                 lens_function_names[k], boot_state == 1 ? " while mpilens was starting" : "");
}

__attribute__((constructor)) static void lens_constructor(void)
{
    lens_boot();
}
