/* SPDX-License-Identifier: BSD-3-Clause */
/* mpilens_spank.c: the Slurm plugin that records every MPI job step (docs/slurm.md,
 * "Always on"). Its plugstack.conf line takes
 *     default=MODULES|off  what each step gets unasked (default: summary; off: opt-in)
 *     spool=DIR            where the summary records go (MPILENS_SPOOL)
 *     optout=yes|no        whether --mpilens=off is honoured (default: yes)
 *     lib=PATH             libmpilens.so (default: ../libmpilens.so beside this plugin)
 * and srun, sbatch and salloc take --mpilens[=MODULES|off] (no value: the summary).
 *
 * In each task of a job step (slurm_spank_task_init, as the user, before exec) it preloads
 * libmpilens.so with MPILENS_MODULES (the modules asked for, the summary always among
 * them unless the step is off) and MPILENS_SITE_SPOOL: the summary module writes the record
 * there whatever spool the user's own arguments name. The site's library is known by its
 * path: an LD_PRELOAD that holds it is kept; a user's own build of mpilens in LD_PRELOAD is
 * kept under optout=yes (it writes the site's record too) and replaced by the site's under
 * optout=no; anything else is kept after the site's library. An LD_PRELOAD too long to handle is
 * said, and the task runs unrecorded rather than with a preload cut short. slurmstepd and the
 * plugin never load MPI; a task that never loads MPI (srun hostname) is left alone by the core, and
 * the batch script's own step and the extern step get nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

SPANK_PLUGIN(mpilens, 1);

#define LIST_MAX 1024
static char site_default[LIST_MAX] = "summary"; /* default= */
static char spool[4096];                        /* spool= */
static char lib[4096];                          /* lib= */
static int optout = 1;                          /* optout= */
static char asked[LIST_MAX];                    /* --mpilens's value ("" not given) */
static int asked_given;

/* The directory this plugin lies in (lib/mpilens), or ".". */
static void plugin_dir(char *dir, size_t len)
{
    Dl_info info;
    snprintf(dir, len, ".");
    if (dladdr((void *)plugin_dir, &info) && info.dli_fname) {
        snprintf(dir, len, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
    }
}

/* Whether the comma-separated module LIST names the summary. */
static int has_summary(const char *list)
{
    for (const char *at = strstr(list, "summary"); at; at = strstr(at + 1, "summary"))
        if ((at == list || at[-1] == ',') && (at[7] == 0 || at[7] == ',' || at[7] == ':'))
            return 1;
    return 0;
}

/* Whether every module of the comma-separated LIST has a file beside this plugin ("off"
 * alone is fine); 0 with the first missing one in MISSING. */
static int modules_exist(const char *list, char *missing, size_t len)
{
    char dir[4096];
    plugin_dir(dir, sizeof dir);
    char copy[LIST_MAX];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save = NULL, *name = strtok_r(copy, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        char path[8192];
        char *colon = strchr(name, ':'); /* NAME:key=value */
        if (colon)
            *colon = '\0';
        snprintf(path, sizeof path, "%s/%s.so", dir, name);
        if (name[0] != '/' && access(path, R_OK) != 0) {
            snprintf(missing, len, "%s", name);
            return 0;
        }
    }
    return 1;
}

static int option_given(int val, const char *optarg, int remote)
{
    (void)val;
    const char *value = optarg && *optarg ? optarg : "summary";
    if (strlen(value) >= sizeof asked) {
        slurm_error("mpilens: --mpilens=%.40s...: the module list is too long", value);
        return -1;
    }
    char missing[256];
    if (!remote && strcmp(value, "off") != 0 && !modules_exist(value, missing, sizeof missing)) {
        slurm_error("mpilens: --mpilens=%s: no module '%s' (mpilens modules lists them)", value,
                    missing);
        return -1;
    }
    if (!remote && strcmp(value, "off") == 0 && !optout)
        fprintf(stderr, "mpilens: this site records every job step (plugstack.conf: optout=no); "
                        "--mpilens=off is ignored\n");
    snprintf(asked, sizeof asked, "%s", value);
    asked_given = 1;
    return 0;
}

struct spank_option spank_options[] = {
    {"mpilens", "[MODULES|off]",
     "Record this job with mpilens: MODULES (profile,monitor,trace...; no value: the summary "
     "record), or off",
     2, 0, option_given},
    SPANK_OPTIONS_TABLE_END};

/* The plugstack.conf arguments. */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
    (void)sp;
    for (int i = 0; i < ac; i++) {
        if (strncmp(av[i], "default=", 8) == 0)
            snprintf(site_default, sizeof site_default, "%s", av[i] + 8);
        else if (strncmp(av[i], "spool=", 6) == 0)
            snprintf(spool, sizeof spool, "%s", av[i] + 6);
        else if (strncmp(av[i], "lib=", 4) == 0)
            snprintf(lib, sizeof lib, "%s", av[i] + 4);
        else if (strcmp(av[i], "optout=no") == 0)
            optout = 0;
        else if (strcmp(av[i], "optout=yes") == 0)
            optout = 1;
        else {
            slurm_error(
                "mpilens: plugstack.conf: unknown argument '%s' (it takes default=MODULES|off, "
                "spool=DIR, optout=yes|no, lib=PATH)",
                av[i]);
            return -1;
        }
    }
    return 0;
}

/* libmpilens.so: lib=, else beside the directory of this plugin (lib/mpilens/..). */
static void library_path(char *out, size_t len)
{
    if (lib[0]) {
        snprintf(out, len, "%s", lib);
        return;
    }
    char dir[4096];
    plugin_dir(dir, sizeof dir);
    snprintf(out, len, "%s/../libmpilens.so", dir);
}

/* The modules of this step: --mpilens, or the site's default; the summary among them
 * unless the step is off. "" when off. */
static void step_modules(char *out, size_t len)
{
    const char *want = asked_given ? asked : site_default;
    if (strcmp(want, "off") == 0 && (!asked_given || optout)) {
        out[0] = '\0';
        return;
    }
    if (strcmp(want, "off") == 0) /* optout=no: the site's default, or the summary */
        want = strcmp(site_default, "off") == 0 ? "summary" : site_default;
    /* the summary last, the innermost layer: the modules asked for keep the application's
     * own view (the outermost does: a module under another counts the other's start-up at
     * MPI_Init as computation, docs/summary.md) */
    snprintf(out, len, "%s%s", want, has_summary(want) ? "" : ",summary");
}

/* Whether the preload element ELEM (LEN bytes) is the library at LIBRARY (REAL: its real
 * path, or ""): the same path, or the same file. */
static int same_library(const char *elem, size_t len, const char *library, const char *real)
{
    char path[4096];
    if (len == 0 || len >= sizeof path)
        return 0;
    memcpy(path, elem, len);
    path[len] = '\0';
    if (strcmp(path, library) == 0)
        return 1;
    char resolved[PATH_MAX];
    return real[0] && realpath(path, resolved) && strcmp(resolved, real) == 0;
}

/* Whether the element (LEN bytes) is a build of mpilens's core: its last component is
 * libmpilens.so. */
static int is_mpilens_core(const char *elem, size_t len)
{
    static const char core[] = "libmpilens.so";
    size_t k = sizeof core - 1;
    return len >= k && memcmp(elem + len - k, core, k) == 0 &&
           (len == k || elem[len - k - 1] == '/');
}

/* The task's LD_PRELOAD with the site's LIBRARY in it (malloc'ed; under optout=yes, one
 * that holds the user's own build of mpilens stays as it is), or NULL: a preload too long,
 * said; the task is left alone. */
static char *preload_with(spank_t sp, const char *library)
{
    size_t cap = 4096;
    char *old = NULL;
    spank_err_t got = ESPANK_NOSPACE;
    while (got == ESPANK_NOSPACE && cap <= (1u << 20)) {
        char *bigger = realloc(old, cap);
        if (!bigger)
            break;
        old = bigger;
        got = spank_getenv(sp, "LD_PRELOAD", old, (int)cap);
        cap *= 2;
    }
    if (got == ESPANK_NOSPACE || !old) {
        slurm_error("mpilens: LD_PRELOAD is longer than 1 MiB: this task is not recorded");
        free(old);
        return NULL;
    }
    if (got != ESPANK_SUCCESS)
        old[0] = '\0';
    char real[PATH_MAX];
    if (!realpath(library, real))
        real[0] = '\0';
    size_t size = strlen(library) + strlen(old) + 2;
    char *out = malloc(size);
    if (!out) {
        free(old);
        return NULL;
    }
    snprintf(out, size, "%s", library);
    /* the elements, separated by colons or blanks (ld.so takes both) */
    for (const char *at = old; *at;) {
        size_t len = strcspn(at, ": \t");
        if (same_library(at, len, library, real)) {
            ; /* the site's library is already first */
        } else if (is_mpilens_core(at, len) && optout) {
            free(out); /* the user's own build measures this task, with the site's record */
            return old;
        } else if (len && !is_mpilens_core(at, len)) {
            size_t used = strlen(out);
            snprintf(out + used, size - used, ":%.*s", (int)len, at);
        }
        at += len;
        at += strspn(at, ": \t");
    }
    free(old);
    return out;
}

/* In each task, before exec: the preload and the variables. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    uint32_t step = 0;
    if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step == SLURM_BATCH_SCRIPT ||
        step == SLURM_EXTERN_CONT
#ifdef SLURM_INTERACTIVE_STEP
        || step == SLURM_INTERACTIVE_STEP
#endif
    )
        return 0;
    char modules[LIST_MAX + 16];
    step_modules(modules, sizeof modules);
    if (!modules[0])
        return 0;
    char have[LIST_MAX];
    /* a step already under `mpilens run` (or MPILENS_MODULES of the user's): the summary
     * joins its modules */
    if (spank_getenv(sp, "MPILENS_MODULES", have, sizeof have) == ESPANK_SUCCESS && have[0]) {
        snprintf(modules, sizeof modules, "%s%s", have, has_summary(have) ? "" : ",summary");
    }
    char library[4096];
    library_path(library, sizeof library);
    char *preload = preload_with(sp, library);
    if (!preload)
        return 0;
    spank_setenv(sp, "LD_PRELOAD", preload, 1);
    free(preload);
    spank_setenv(sp, "MPILENS_MODULES", modules, 1);
    if (spool[0]) {
        spank_setenv(sp, "MPILENS_SPOOL", spool, 1);
        spank_setenv(sp, "MPILENS_SITE_SPOOL", spool, 1);
    }
    return 0;
}
