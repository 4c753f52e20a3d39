/* SPDX-License-Identifier: BSD-3-Clause */
/* recover.c: the merge behind `mpilens recover DIR` (recover_cmd.c), and what `mpilens run` does
 * after a job that did not reach MPI_Finalize: the ranks' saved records (DIR/partial/MODULE.RANK,
 * see include/mpilens_snapshot.h) merged into DIR/mpilens.db by each module's own
 * mpilens_module_recover (the module's .so is loaded here; it runs no MPI), and the run
 * marked incomplete. The partial files go once their module has merged them. A module
 * that left its merge to the CLI on purpose (the trace with convert=after) returns 1: the
 * run is complete.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "modspec.h"
#include "trace_reader.h"

typedef int (*recover_fn)(const char *dir, char *err, size_t errlen);

/* Removes the files of PARTIAL whose names start with PREFIX: "NAME." (the merged files of
 * one module) or "." (temporary files of snapshots cut short). */
static void remove_files(const char *partial, const char *prefix)
{
    DIR *d = opendir(partial);
    struct dirent *e;
    size_t len = strlen(prefix);
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, prefix, len) != 0 || strcmp(e->d_name, ".") == 0 ||
            strcmp(e->d_name, "..") == 0)
            continue;
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", partial, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
}

/* Recovers one module's files; 1 recovered, 0 nothing to do, -1 failed (said on stderr). */
static int recover_module(const char *dir, const char *partial, const char *name)
{
    struct lens_modspec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = (char *)name;
    snprintf(spec.origin, sizeof spec.origin, "%s/partial", dir);
    char path[4096], err[LENS_ERR_LEN];
    if (lens_module_find(&spec, cli_libdir(), path, sizeof path, err) != 0 ||
        lens_elf_problem(path, err, sizeof err)) {
        fprintf(stderr, "mpilens: recover: %s\n", err);
        return -1;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    recover_fn recover = handle ? (recover_fn)dlsym(handle, "mpilens_module_recover") : NULL;
    if (!recover) {
        fprintf(stderr,
                "mpilens: recover: %s/%s.*: module '%s' (%s) cannot merge saved records "
                "(%s); they are left in place\n",
                partial, name, name, path, handle ? "it has no mpilens_module_recover" : dlerror());
        return -1;
    }
    err[0] = '\0';
    int rc = recover(dir, err, sizeof err);
    if (rc < 0 || rc > 1) {
        fprintf(stderr, "mpilens: recover: module '%s': %s\n", name, err);
        return -1;
    }
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.", name);
    remove_files(partial, prefix);
    return rc == 1 ? 2 : 1; /* 1: the run was complete, the module had left its merge to us */
}

int cli_recover_run(const char *dir, int *completed)
{
    int finished = 0; /* modules that completed a run's deferred work */
    if (completed)
        *completed = 0;
    char partial[4200];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    struct dirent **entries;
    int n = scandir(partial, &entries, NULL, alphasort);
    if (n < 0)
        return 0;
    int recovered = 0, failed = 0;
    char last[256] = "";
    for (int i = 0; i < n; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s", entries[i]->d_name);
        char *dot = strchr(name, '.');
        if (name[0] != '.' && dot) {
            *dot = '\0';
            if (strcmp(name, last) != 0) {
                snprintf(last, sizeof last, "%s", name);
                int r = recover_module(dir, partial, name);
                recovered += r == 1;
                finished += r == 2;
                failed += r < 0;
            }
        }
        free(entries[i]);
    }
    free(entries);
    if (completed)
        *completed = finished;
    if (!failed) { /* temporary files of snapshots cut short go too */
        remove_files(partial, ".");
        rmdir(partial);
    }
    return failed ? -1 : recovered;
}

int cli_convert_pending(const char *run, const char *verb)
{
    char pending[4200], anchor[4200];
    snprintf(pending, sizeof pending, "%s/trace/" MPILENS_TRACE_PENDING, run);
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", run);
    if (access(pending, F_OK) != 0 || access(anchor, F_OK) == 0)
        return 0;
    fprintf(stderr,
            "mpilens: %s: %s: converting the trace's event logs to OTF2 first (once; what "
            "`mpilens recover %s` does)\n",
            verb, run, run);
    if (cli_recover_run(run, NULL) < 0 || access(anchor, F_OK) != 0) {
        fprintf(stderr,
                "mpilens: %s: %s: the trace could not be converted (said above); its event logs "
                "stay in %s/trace/log for `mpilens recover %s`\n",
                verb, run, run, run);
        return -1;
    }
    return 1;
}

/* DIR/pcontrol/K with K all digits (an intermediate result's directory). */
static int is_step(const struct dirent *e)
{
    return e->d_name[0] && strspn(e->d_name, "0123456789") == strlen(e->d_name);
}

static int by_number(const struct dirent **a, const struct dirent **b)
{
    return atoi((*a)->d_name) - atoi((*b)->d_name);
}

int cli_recover_intermediate(const char *dir, int *first, int *last)
{
    char root[4200];
    snprintf(root, sizeof root, "%s/pcontrol", dir);
    struct dirent **steps;
    int n = scandir(root, &steps, is_step, by_number), made = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        char step[4500], partial[4600];
        snprintf(step, sizeof step, "%s/%s", root, steps[i]->d_name);
        snprintf(partial, sizeof partial, "%s/partial", step);
        if (access(partial, F_OK) == 0) {
            int r = cli_recover_run(step, NULL);
            failed += r < 0;
            if (r > 0) {
                if (!made++ && first)
                    *first = atoi(steps[i]->d_name);
                if (last)
                    *last = atoi(steps[i]->d_name);
            }
        }
        free(steps[i]);
    }
    if (n > 0)
        free(steps);
    return failed ? -1 : made;
}

/* Says where the intermediate results of DIR went (FIRST..LAST of COUNT). */
void cli_say_intermediate(const char *dir, int count, int first, int last)
{
    if (count == 1)
        fprintf(stderr, "mpilens: 1 intermediate result (MPI_Pcontrol) in %s/pcontrol/%d\n", dir,
                first);
    else if (count > 1)
        fprintf(stderr, "mpilens: %d intermediate results (MPI_Pcontrol) in %s/pcontrol/%d .. %d\n",
                count, dir, first, last);
}
