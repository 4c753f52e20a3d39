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

#ifdef __cplusplus
}
#endif

#endif
