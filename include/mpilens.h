/* SPDX-License-Identifier: BSD-3-Clause */
/* mpilens.h: the public C API of mpilens.
 *
 * Two audiences: modules (PMPI tools stacked by the core) that want the core's services,
 * and applications that want to talk to mpilens at run time. Every function is declared
 * weak, and the static inline helpers below check that it is present, so a module or an
 * application that includes this header still links and runs when mpilens is not loaded
 * (a module preloaded alone, an application run without the tool).
 */
#ifndef MPILENS_H
#define MPILENS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPILENS_VERSION "0.1.0"

/* ---- What a module may export (all optional; the core finds them with dlsym) ---- */

/* A module's arguments: `module NAME key=value ...` in a config file, or
 * `NAME:key=value:...` in MPILENS_MODULES / `mpilens run -m`. */
struct mpilens_module_args {
    const char *name;          /* the name the user gave (NAME or a path) */
    const char *path;          /* the .so that was loaded */
    int level;                 /* 1-based position in the stack */
    int count;                 /* number of key=value pairs */
    const char *const *keys;   /* count keys */
    const char *const *values; /* count values */
};

/* Called once per stack position, in stack order, before main() and before MPI_Init.
 * Return 0; anything else stops the run with the message the module printed. */
typedef int (*mpilens_module_init_fn)(const struct mpilens_module_args *args);
/* Export as: int mpilens_module_init(const struct mpilens_module_args *args); */
/* Export as: const char mpilens_module_description[] = "one line"; */
/* Export as: int mpilens_module_check(const char *key, const char *value, char *why,
 *                                      size_t len);
 * Optional: judges one key=value argument without side effects (called for each before
 * mpilens_module_init, by the core in every rank and by `mpilens run` before the job starts,
 * with no other mpilens function available). Return 0, or -1 with one line in WHY that names
 * the module, the argument and what to give instead ("trace: buffer=1: give ..."). */
typedef int (*mpilens_module_check_fn)(const char *key, const char *value, char *why, size_t len);
/* Export as: const char mpilens_module_arguments[] = "key=VALUE  what it does\n...";
 * one line per argument the module takes. When it is exported, the core refuses any other
 * key before main() (one line naming the module, the key and the keys it takes), and
 * `mpilens modules NAME` lists the lines. */

/* Export as: const int mpilens_module_direct = 1;
 * Optional: when the module is alone in the stack, the application's MPI_X jumps straight
 * to its wrapper and the module's PMPI_X calls go straight to the library (no core code in
 * between: about 45 instructions a call less); stacked with modules that all export it,
 * the same for each function only this module wraps. A module that exports it promises to
 * find call sites with mpilens_site() (not mpilens_caller()), to make its own calls through
 * PMPI_ functions only (never MPI_X), and not to depend on anything else the core's levels
 * decide. Otherwise it is run like any module. */

/* Export as: const int mpilens_module_chained = 1; (with mpilens_module_direct)
 * Optional: the module passes the application's call of MPI_X on with
 * mpilens_down_MPI_X(...) (MPILENS_DOWN(X), the generated lens_down.h, whose weak
 * definitions call PMPI_X when mpilens is not loaded) and makes its own calls with PMPI_X.
 * In a stack whose modules all export it, the core binds each module's pass-downs straight
 * to the next module that wraps X and its PMPI_X to the library: no core code between
 * modules. A module that wraps X without a pass-down of X keeps the stack on the levels. */

/* ---- Services the core offers (weak: NULL when mpilens is not loaded) ---- */

/* Publish a named service (a function or data pointer and its size) for other modules.
 * Returns 0, or -1 if the name is taken. Publish in mpilens_module_init; look up at
 * MPI_Init or later, when every module's init has run. */
int mpilens_service_publish(const char *name, void *pointer, size_t size) __attribute__((weak));
/* The pointer published under name (and its size, if size != NULL), or NULL. */
void *mpilens_service_lookup(const char *name, size_t *size) __attribute__((weak));
/* Value of key in args, or fallback. */
const char *mpilens_module_arg(const struct mpilens_module_args *args, const char *key,
                               const char *fallback) __attribute__((weak));
/* The run's output directory (created on first call): -o DIR, MPILENS_OUTPUT, or the
 * default PROGRAM-YYYYmmdd-HHMMSS chosen by rank 0 at MPI_Init. NULL outside mpilens. */
const char *mpilens_output_dir(void) __attribute__((weak));
/* Number of modules the call MPI function `name` visits (0: straight to the library),
 * or -1 for a name the core does not know. */
int mpilens_chain_length(const char *name) __attribute__((weak));
/* Number of modules in the stack. */
int mpilens_module_count(void) __attribute__((weak));
/* The application's call site (return address) of the MPI call being made on this thread,
 * as the core saw it enter the stack: read it at the start of a wrapper. */
void *mpilens_caller(void) __attribute__((weak));
/* The same for a module that exports mpilens_module_direct: give it the wrapper's own
 * return address, mpilens_site(__builtin_return_address(0)), read in the MPI_X wrapper
 * itself (not in a function it calls). A Fortran call gives the Fortran line's address. */
void *mpilens_site(void *return_address) __attribute__((weak));
/* Return addresses in [*lo, *lo + *span) need mpilens_site(); any other one is the call
 * site itself, so a module can test inline and call mpilens_site() only inside the range
 * (all of memory when the MPI library's Fortran bindings are loaded). Ask from the module's
 * own code, at mpilens_module_init or MPI_Init: in a chained stack (mpilens_module_chained)
 * a module below another for some function is given a range that covers the modules, and
 * the call site is stored for it on entry from then on. */
void mpilens_site_range(unsigned long *lo, unsigned long *span) __attribute__((weak));
/* Where the core stores the calling thread's call site (what mpilens_caller() returns when
 * a runner entered the stack), for a module that reads it inline on its fast path: a
 * return address inside [lo, lo + span) of mpilens_site_range() names the site *slot
 * holds. Valid for the thread that asked only (ask at MPI_Init, and use it only when no
 * other thread makes MPI calls); NULL when a site needs more than the stored address (the
 * MPI library's Fortran bindings are loaded): then call mpilens_site(). */
void **mpilens_caller_slot(void) __attribute__((weak));
/* A call site that is not an address in a loaded object: a Python line (the call came
 * through a Python extension such as mpi4py: docs/python.md). Its text,
 * "python:FILE:FUNCTION:LINE" (FILE "python" and FUNCTION "(why)" when no frame could be
 * read), or NULL for an ordinary address. */
const char *mpilens_site_label(void *site) __attribute__((weak));
/* MPI-4 sessions (src/core/sessions.c): a program that never calls MPI_Init is recorded
 * like one that does. The module whose MPI_Session_init wrapper runs first, while MPI's world
 * model is not initialized, claims the run (ME: an address of its own) and starts it
 * through its own MPI_Init_thread wrapper, which every module below sees; 1 if the caller
 * claimed it. mpilens_session_opened counts a session the library opened (for the
 * claimant only); mpilens_session_closed one it closed: 1 when it was the last and ME
 * claimed the run, which then ends it through its own MPI_Finalize wrapper. module_life.h's
 * LENS_SESSION_LIFE writes the two wrappers. */
int mpilens_session_claim(const void *me) __attribute__((weak));
void mpilens_session_opened(const void *me) __attribute__((weak));
int mpilens_session_closed(const void *me) __attribute__((weak));
/* Seconds the core took to start (resolve the library, load and link the modules). */
double mpilens_boot_seconds(void) __attribute__((weak));
/* The mpilens version string of the loaded core. */
const char *mpilens_version(void) __attribute__((weak));

/* ---- Helpers that are safe without mpilens ---- */

static inline int mpilens_loaded(void)
{
    return mpilens_version != NULL;
}

static inline void *mpilens_lookup(const char *name, size_t *size)
{
    return mpilens_service_lookup ? mpilens_service_lookup(name, size) : NULL;
}

static inline int mpilens_publish(const char *name, void *pointer, size_t size)
{
    return mpilens_service_publish ? mpilens_service_publish(name, pointer, size) : -1;
}

/* ---- The monitor module's API (safe without mpilens or without the module) ---- */

/* Matrix kinds for mpilens_monitor_read. */
enum mpilens_monitor_kind {
    MPILENS_MONITOR_P2P = 0,     /* point-to-point messages sent, by world rank */
    MPILENS_MONITOR_COLL = 1,    /* collectives, decomposed as Open MPI's monitoring does */
    MPILENS_MONITOR_RMA = 2,     /* one-sided data sent to targets */
    MPILENS_MONITOR_RMA_RECV = 3 /* one-sided data received from targets (Get, results) */
};

struct mpilens_monitor_api {
    int (*start)(void);
    int (*stop)(void);
    int (*reset)(void);
    int (*read)(int kind, unsigned long long *counts, unsigned long long *bytes, int n);
    int (*flush)(const char *phase);
    int (*reorder)(const void *comm, int *new_rank);
};

static inline struct mpilens_monitor_api *mpilens_monitor_api_(void)
{
    return (struct mpilens_monitor_api *)mpilens_lookup("monitor.api", NULL);
}
/* Start / stop recording (it starts at MPI_Init unless MPILENS_MONITOR_START=0).
 * Each returns 0, or -1 when the monitor is not loaded. */
static inline int mpilens_monitor_start(void)
{
    return mpilens_monitor_api_() ? mpilens_monitor_api_()->start() : -1;
}
static inline int mpilens_monitor_stop(void)
{
    return mpilens_monitor_api_() ? mpilens_monitor_api_()->stop() : -1;
}
/* Zero the current counters (closed phases are kept). */
static inline int mpilens_monitor_reset(void)
{
    return mpilens_monitor_api_() ? mpilens_monitor_api_()->reset() : -1;
}
/* This rank's current counters of kind toward each world rank, into counts[n] and bytes[n]
 * (either may be NULL); n must be at least the size of MPI_COMM_WORLD. */
static inline int mpilens_monitor_read(int kind, unsigned long long *counts,
                                       unsigned long long *bytes, int n)
{
    return mpilens_monitor_api_() ? mpilens_monitor_api_()->read(kind, counts, bytes, n) : -1;
}
/* Close the current phase under a name (`mpilens matrix --phase NAME`) and start a new one. */
static inline int mpilens_monitor_flush(const char *phase)
{
    return mpilens_monitor_api_() ? mpilens_monitor_api_()->flush(phase) : -1;
}

/* Collective over *comm (a pointer to an MPI_Comm): from the traffic monitored so far
 * between its members, a new rank for this process such that ranks that talk much sit on
 * nearby cores of this machine (TreeMatch over its hwloc topology). Use it as the key of
 * MPI_Comm_split(comm, 0, new_rank, &better) to remap an application mid-run. */
static inline int mpilens_monitor_reorder(const void *comm, int *new_rank)
{
    return mpilens_monitor_api_() ? mpilens_monitor_api_()->reorder(comm, new_rank) : -1;
}

/* ---- The trace module's API (safe without mpilens or without the module) ---- */

struct mpilens_trace_api {
    int (*name_region)(const char *name);
};
/* Names the user region the next MPI_Pcontrol(1) enters (MPI_Pcontrol(0) leaves the
 * innermost one); `mpilens analyze` then tells the waits of each region apart. Without a
 * name the region is "phase". Returns 0, or -1 when the trace module is not loaded. */
static inline int mpilens_trace_region(const char *name)
{
    struct mpilens_trace_api *api = (struct mpilens_trace_api *)mpilens_lookup("trace.api", NULL);
    return api ? api->name_region(name) : -1;
}

#ifdef __cplusplus
}
#endif

#endif
