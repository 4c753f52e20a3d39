/* SPDX-License-Identifier: BSD-3-Clause */
/* modules.c: `mpilens modules`: list the modules mpilens can find, in search order, with
 * each one's description (its `mpilens_module_description` string, if it has one) and
 * the number of MPI functions it wraps. Third-party PMPI tools are listed too.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lens_functions.h"
#include "modspec.h"

#ifndef MPILENS_MODULE_DIR
#define MPILENS_MODULE_DIR "/usr/local/lib/mpilens"
#endif

static const char usage[] =
    "usage: mpilens modules [-v] [NAME]\n"
    "\n"
    "Lists the modules found in MPILENS_MODULE_PATH, then next to libmpilens.so, then in\n"
    "the install directory, with what each does and how many MPI functions it wraps.\n"
    "With NAME: that module's file, description and the arguments it takes\n"
    "(-m NAME:key=value, or `module NAME key=value` in a config file).\n"
    "  -v, --verbose  also print each module's file\n";

/* "libfoo.so" / "mpilens-foo.so" / "foo.so" -> "foo"; NULL for other files. */
static char *module_name(const char *file)
{
    size_t len = strlen(file);
    if (len < 4 || strcmp(file + len - 3, ".so") != 0)
        return NULL;
    const char *start = file;
    if (strncmp(file, "mpilens-", 8) == 0)
        start += 8;
    else if (strncmp(file, "lib", 3) == 0)
        start += 3;
    return strndup(start, (size_t)(file + len - 3 - start));
}

static void describe(const char *dir, const char *file, int verbose)
{
    char *name = module_name(file);
    if (!name)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char damaged[1024];
    if (lens_elf_problem(path, damaged, sizeof damaged)) {
        printf("%-16s  %5s  (cannot load: %s)\n", name, "-", damaged);
        free(name);
        return;
    }
    void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        printf("%-16s  %5s  (cannot load: %s)\n", name, "-", dlerror());
        free(name);
        return;
    }
    if (lens_own_symbol(handle, "slurm_spank_init")) { /* the Slurm plugin: not a module */
        free(name);
        return;
    }
    int wrapped = 0;
    for (int k = 0; k < lens_function_count; k++)
        wrapped += lens_own_symbol(handle, lens_function_names[k]) != NULL;
    const char *text = lens_own_symbol(handle, "mpilens_module_description");
    printf("%-16s  %5d  %s\n", name, wrapped, text ? text : "(PMPI tool without a description)");
    if (verbose)
        printf("%-16s  %5s  %s\n", "", "", path);
    free(name);
}

static int list_dir(const char *dir, int verbose)
{
    struct dirent **entries;
    int n = scandir(dir, &entries, NULL, alphasort);
    if (n < 0)
        return 0;
    int shown = 0;
    for (int i = 0; i < n; i++) {
        if (module_name(entries[i]->d_name)) {
            describe(dir, entries[i]->d_name, verbose);
            shown++;
        }
        free(entries[i]);
    }
    free(entries);
    return shown;
}

/* `mpilens modules NAME`: one module's file, description and arguments. */
static int describe_one(const char *name)
{
    struct lens_modspec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = (char *)name;
    snprintf(spec.origin, sizeof spec.origin, "modules");
    char path[4096], err[LENS_ERR_LEN];
    if (lens_module_find(&spec, cli_libdir(), path, sizeof path, err) != 0 ||
        lens_elf_problem(path, err, sizeof err)) {
        fprintf(stderr, "mpilens: %s\n", err);
        return 2;
    }
    void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        fprintf(stderr, "mpilens: modules: %s: cannot load (%s)\n", path, dlerror());
        return 2;
    }
    const char *text = lens_own_symbol(handle, "mpilens_module_description");
    const char *args = lens_own_symbol(handle, "mpilens_module_arguments");
    printf("module %s (%s)\n  %s\narguments:\n", name, path,
           text ? text : "(PMPI tool without a description)");
    if (!args)
        printf("  (none declared: it reads what it likes)\n");
    for (const char *line = args; line && *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int)(end - line) : (int)strlen(line);
        printf("  %.*s\n", n, line);
        line = end ? end + 1 : line + n;
    }
    return 0;
}

int cli_modules(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            return describe_one(argv[i]);
    int verbose = argc > 1 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--verbose") == 0);
    printf("%-16s  %5s  %s\n", "MODULE", "WRAPS", "DESCRIPTION");
    int shown = 0;
    const char *env = getenv("MPILENS_MODULE_PATH");
    if (env) {
        char *copy = strdup(env), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            shown += list_dir(d, verbose);
        free(copy);
    }
    char own[4096];
    snprintf(own, sizeof own, "%s/mpilens", cli_libdir());
    shown += list_dir(own, verbose);
    if (strcmp(own, MPILENS_MODULE_DIR) != 0)
        shown += list_dir(MPILENS_MODULE_DIR, verbose);
    if (shown == 0)
        printf("(no modules found; set MPILENS_MODULE_PATH or give a path to a .so)\n");
    return 0;
}
