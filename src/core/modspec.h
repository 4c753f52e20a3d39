/* SPDX-License-Identifier: BSD-3-Clause */
/* modspec.h: which modules the user asked for, read from MPILENS_MODULES or a config
 * file, and where each one's .so lives. Shared by the core (at load time) and by the CLI
 * (which checks a run's module list before it starts anything).
 */
#ifndef LENS_MODSPEC_H
#define LENS_MODSPEC_H

#include <stddef.h>

#define LENS_MAX_ARGS 32
#define LENS_ERR_LEN 1024

struct lens_modspec {
    char *name; /* as written: a name or a path to a .so */
    int nargs;
    char *keys[LENS_MAX_ARGS];
    char *values[LENS_MAX_ARGS];
    char origin[512]; /* "MPILENS_MODULES" or the config file's path */
    int line;         /* line in the config file, 0 for the environment */
};

struct lens_modlist {
    int count;
    struct lens_modspec *items;
    char source[512]; /* where the list came from, for messages; "" if nowhere */
};

/* Parse "a,b:key=value:k2=v2,c". Returns 0, or -1 with a one-line message in err. */
int lens_modlist_parse_env(const char *value, struct lens_modlist *out, char *err);
/* Parse a config file of `module NAME [key=value ...]` lines. 0, or -1 and err. */
int lens_modlist_parse_file(const char *path, struct lens_modlist *out, char *err);
/* The configured list: MPILENS_MODULES, else MPILENS_CONF, else ./.mpilens.conf, else
 * $HOME/.mpilens.conf, else empty. 0, or -1 and err. */
int lens_modlist_configured(struct lens_modlist *out, char *err);
void lens_modlist_free(struct lens_modlist *list);

/* Find the .so for a module name: a path if it contains '/', else NAME.so, libNAME.so or
 * mpilens-NAME.so in MPILENS_MODULE_PATH, then LIBDIR/mpilens, then the install
 * directory. Returns 0 and the path, or -1 and a message in err naming what was searched. */
int lens_module_find(const struct lens_modspec *spec, const char *libdir, char *path,
                     size_t pathlen, char *err);

/* Address of name if the shared object behind handle defines it itself, or NULL. */
void *lens_own_symbol(void *handle, const char *name);

/* mkdir -p path, then check it is writable: 0, or -1 with errno set. */
int lens_make_dirs(const char *path);
/* The default output directory's name for PROGRAM (run_name.c). */
void lens_run_name(const char *program, char *out, size_t len);

/* Prefix for messages about spec: "FILE:LINE" or "MPILENS_MODULES". */
void lens_modspec_where(const struct lens_modspec *spec, char *buf, size_t len);

/* 1 (with ERR) when the shared object PATH is cut short or its headers are damaged, which
 * would make dlopen fault; 0 otherwise (elf_check.c). */
int lens_elf_problem(const char *path, char *err, size_t n);

/* SPEC's keys against DECLARED (a module's mpilens_module_arguments: "key=VALUE  text"
 * lines; NULL: anything goes). 0, or -1 with ERR naming the unknown key and the known ones. */
int lens_modspec_check_arguments(const struct lens_modspec *spec, const char *declared, char *err);

#endif
