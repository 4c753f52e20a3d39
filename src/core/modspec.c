/* SPDX-License-Identifier: BSD-3-Clause */
/* modspec.c: parse the module list (environment or config file) and locate module files.
 *
 * Syntax of a config file: one `module NAME [key=value ...]` per line, in stack order;
 * `#` starts a comment; blank lines are ignored. Syntax of MPILENS_MODULES (and of
 * `mpilens run -m`): NAME[:key=value...] items separated by commas; a value's own commas
 * stay in it where a digit follows (buckets=128,1024). Every error names
 * the file and line (or the variable) and says what to write instead.
 */
#define _GNU_SOURCE
#include "modspec.h"
#include "text_nearest.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MPILENS_MODULE_DIR
#define MPILENS_MODULE_DIR "/usr/local/lib/mpilens"
#endif

void lens_modspec_where(const struct lens_modspec *spec, char *buf, size_t len)
{
    if (spec->line > 0)
        snprintf(buf, len, "%s:%d", spec->origin, spec->line);
    else
        snprintf(buf, len, "%s", spec->origin);
}

static struct lens_modspec *append_spec(struct lens_modlist *list, const char *name,
                                        const char *origin, int line)
{
    struct lens_modspec *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (!items)
        return NULL;
    list->items = items;
    struct lens_modspec *spec = &items[list->count++];
    memset(spec, 0, sizeof *spec);
    spec->name = strdup(name);
    snprintf(spec->origin, sizeof spec->origin, "%s", origin);
    spec->line = line;
    return spec;
}

/* A message quotes what the user wrote: control characters in it (a newline inside
 * MPILENS_MODULES, binary bytes in a config file) become '?', so it stays one line. */
static void one_line(char *err)
{
    for (unsigned char *c = (unsigned char *)err; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            *c = '?';
}

/* Adds "key=value" to spec; 0, or -1 with err. */
static int add_arg(struct lens_modspec *spec, const char *arg, const char *where, char *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, LENS_ERR_LEN,
                 "%s: module '%s': argument '%s' is not key=value; write it as key=value", where,
                 spec->name, arg);
        return -1;
    }
    if (spec->nargs == LENS_MAX_ARGS) {
        snprintf(err, LENS_ERR_LEN, "%s: module '%s' has more than %d arguments", where, spec->name,
                 LENS_MAX_ARGS);
        return -1;
    }
    spec->keys[spec->nargs] = strndup(arg, (size_t)(eq - arg));
    spec->values[spec->nargs] = strdup(eq + 1);
    spec->nargs++;
    return 0;
}

int lens_modlist_parse_env(const char *value, struct lens_modlist *out, char *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "MPILENS_MODULES");
    char *copy = strdup(value), *save = NULL;
    int position = 0, rc = 0;
    if (*value == '\0') {
        snprintf(err, LENS_ERR_LEN,
                 "MPILENS_MODULES is set but empty: name at least one module "
                 "(`mpilens modules` lists them) or unset it");
        rc = -1;
    }
    /* strtok would skip empty items such as "a,,b"; walk commas by hand. A comma followed
     * by a digit inside a value continues it: profile:buckets=128,1024,trace is two modules,
     * profile with buckets=128,1024 and trace (no module name starts with a digit). */
    for (char *item = copy; rc == 0 && item; position++) {
        char *comma = strchr(item, ',');
        while (comma && isdigit((unsigned char)comma[1]) &&
               memchr(item, '=', (size_t)(comma - item)))
            comma = strchr(comma + 1, ',');
        if (comma)
            *comma = '\0';
        char *name = strtok_r(item, ":", &save);
        if (!name || !*name || isspace((unsigned char)*name)) {
            snprintf(err, LENS_ERR_LEN,
                     "MPILENS_MODULES='%s': module %d has no name; write name1,name2 "
                     "(no empty items)",
                     value, position + 1);
            rc = -1;
            break;
        }
        struct lens_modspec *spec = append_spec(out, name, "MPILENS_MODULES", 0);
        for (char *arg; rc == 0 && (arg = strtok_r(NULL, ":", &save));)
            rc = add_arg(spec, arg, "MPILENS_MODULES", err);
        item = comma ? comma + 1 : NULL;
    }
    free(copy);
    if (rc) {
        lens_modlist_free(out);
        one_line(err);
    }
    return rc;
}

int lens_modlist_parse_file(const char *path, struct lens_modlist *out, char *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, LENS_ERR_LEN,
                 "%s: cannot read the config file (%s); fix the path in "
                 "MPILENS_CONF or create the file",
                 path, strerror(errno));
        return -1;
    }
    char line[4096], where[600];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (strlen(line) == sizeof line - 1 && line[sizeof line - 2] != '\n' && !feof(f)) {
            snprintf(err, LENS_ERR_LEN, "%s: line longer than %zu characters; split it", where,
                     sizeof line - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *save = NULL;
        char *word = strtok_r(line, " \t\r\n", &save);
        if (!word)
            continue;
        if (strcmp(word, "module") != 0) {
            snprintf(err, LENS_ERR_LEN,
                     "%s: unknown directive '%s'; each line reads `module NAME [key=value ...]`",
                     where, word);
            rc = -1;
            break;
        }
        char *name = strtok_r(NULL, " \t\r\n", &save);
        if (!name) {
            snprintf(err, LENS_ERR_LEN,
                     "%s: `module` without a name; write `module NAME [key=value ...]`", where);
            rc = -1;
            break;
        }
        struct lens_modspec *spec = append_spec(out, name, path, lineno);
        for (char *arg; rc == 0 && (arg = strtok_r(NULL, " \t\r\n", &save));)
            rc = add_arg(spec, arg, where, err);
    }
    fclose(f);
    if (rc) {
        lens_modlist_free(out);
        one_line(err);
    }
    return rc;
}

static int readable(const char *path)
{
    return access(path, R_OK) == 0;
}

int lens_modlist_configured(struct lens_modlist *out, char *err)
{
    memset(out, 0, sizeof *out);
    const char *env = getenv("MPILENS_MODULES");
    if (env)
        return lens_modlist_parse_env(env, out, err);
    const char *conf = getenv("MPILENS_CONF");
    if (conf && *conf)
        return lens_modlist_parse_file(conf, out, err);
    if (readable(".mpilens.conf"))
        return lens_modlist_parse_file(".mpilens.conf", out, err);
    const char *home = getenv("HOME");
    if (home) {
        char path[4096];
        snprintf(path, sizeof path, "%s/.mpilens.conf", home);
        if (readable(path))
            return lens_modlist_parse_file(path, out, err);
    }
    return 0;
}

void lens_modlist_free(struct lens_modlist *list)
{
    for (int i = 0; i < list->count; i++) {
        struct lens_modspec *spec = &list->items[i];
        free(spec->name);
        for (int a = 0; a < spec->nargs; a++) {
            free(spec->keys[a]);
            free(spec->values[a]);
        }
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Tries the three file names in dir; appends dir to the searched list. */
static int find_in_dir(const char *dir, const char *name, char *path, size_t pathlen,
                       char *searched, size_t searchedlen)
{
    static const char *const patterns[] = {"%s/%s.so", "%s/lib%s.so", "%s/mpilens-%s.so"};
    if (!*dir)
        return -1;
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
        snprintf(path, pathlen, patterns[i], dir, name);
        if (is_file(path))
            return 0;
    }
    size_t used = strlen(searched);
    snprintf(searched + used, searchedlen - used, "%s%s", used ? ":" : "", dir);
    return -1;
}

/* " (did you mean profile?)" for NAME, from the modules in the directories of SEARCHED
 * (colon-separated), or "". */
static void nearest_module(const char *name, const char *searched, char *hint, size_t n)
{
    static char names[256][64];
    const char *choices[256];
    int count = 0;
    hint[0] = '\0';
    char *copy = strdup(searched), *save = NULL;
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && count < 256;
         dir = strtok_r(NULL, ":", &save)) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) && count < 256) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
                continue;
            const char *base = e->d_name;
            if (strncmp(base, "mpilens-", 8) == 0)
                base += 8;
            else if (strncmp(base, "lib", 3) == 0)
                base += 3;
            snprintf(names[count], sizeof names[count], "%.*s",
                     (int)(strlen(base) - 3 < 63 ? strlen(base) - 3 : 63), base);
            choices[count] = names[count];
            count++;
        }
        if (d)
            closedir(d);
    }
    free(copy);
    const char *near = lens_nearest(name, choices, count);
    if (near)
        snprintf(hint, n, " (did you mean %s?)", near);
}

int lens_module_find(const struct lens_modspec *spec, const char *libdir, char *path,
                     size_t pathlen, char *err)
{
    char where[600];
    lens_modspec_where(spec, where, sizeof where);
    if (strchr(spec->name, '/')) {
        if (is_file(spec->name)) {
            snprintf(path, pathlen, "%s", spec->name);
            return 0;
        }
        snprintf(err, LENS_ERR_LEN,
                 "%s: module file '%s' does not exist; give the path of "
                 "an existing .so or a module name",
                 where, spec->name);
        return -1;
    }
    char searched[2048] = "";
    const char *env = getenv("MPILENS_MODULE_PATH");
    if (env) {
        char *copy = strdup(env), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            if (find_in_dir(dir, spec->name, path, pathlen, searched, sizeof searched) == 0) {
                free(copy);
                return 0;
            }
        }
        free(copy);
    }
    char own[4096];
    snprintf(own, sizeof own, "%s/mpilens", libdir ? libdir : "");
    if (libdir && find_in_dir(own, spec->name, path, pathlen, searched, sizeof searched) == 0)
        return 0;
    if (find_in_dir(MPILENS_MODULE_DIR, spec->name, path, pathlen, searched, sizeof searched) == 0)
        return 0;
    char hint[96];
    nearest_module(spec->name, searched, hint, sizeof hint);
    snprintf(err, LENS_ERR_LEN,
             "%s: unknown module '%s'%s (no %s.so, lib%s.so or mpilens-%s.so in %s); "
             "`mpilens modules` lists the modules, or give a path to the .so",
             where, spec->name, hint, spec->name, spec->name, spec->name, searched);
    return -1;
}

int lens_modspec_check_arguments(const struct lens_modspec *spec, const char *declared, char *err)
{
    if (!declared)
        return 0; /* a module that declares nothing reads what it likes */
    for (int a = 0; a < spec->nargs; a++) {
        const char *key = spec->keys[a], *line = declared;
        size_t len = strlen(key);
        int known = 0;
        for (; *line && !known; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
            known = strncmp(line, key, len) == 0 && line[len] == '=';
        if (known)
            continue;
        char keys[512] = "", where[600];
        for (line = declared; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
            size_t n = strcspn(line, "=\n"), at = strlen(keys);
            snprintf(keys + at, sizeof keys - at, "%s%.*s", at ? ", " : "", (int)n, line);
        }
        lens_modspec_where(spec, where, sizeof where);
        snprintf(err, LENS_ERR_LEN,
                 "%s: module '%s': unknown argument '%s'; it takes %s (mpilens "
                 "modules %s)",
                 where, spec->name, key, keys, spec->name);
        return -1;
    }
    return 0;
}
