/* SPDX-License-Identifier: BSD-3-Clause */
/* tune_line.c: the library settings `mpilens tune` writes (DIR/tune/settings.env) and how
 * `mpilens run --tune` applies them ahead of the environment, a site file and the launcher
 * line (docs/tune.md).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tune.h"

void tune_variable(enum tune_mpi mpi, const char *op, char *out, size_t len)
{
    if (mpi == TUNE_OPEN_MPI) {
        snprintf(out, len, "OMPI_MCA_coll_tuned_%s_algorithm", op);
        for (char *p = out + strlen("OMPI_MCA_"); *p; p++)
            *p = (char)tolower((unsigned char)*p);
    } else {
        snprintf(out, len, "MPIR_CVAR_%s_INTRA_ALGORITHM", op);
        for (char *p = out; *p; p++)
            *p = (char)toupper((unsigned char)*p);
    }
}

/* 1 when KEY (an MCA name, or NAME or NAME=VALUE) is the variable NAME. */
static int names(const char *key, const char *name)
{
    const char *mca = strncmp(name, "OMPI_MCA_", 9) == 0 ? name + 9 : NULL;
    size_t n = strcspn(key, "=");
    return (strlen(name) == n && strncmp(key, name, n) == 0) ||
           (mca && strlen(mca) == n && strncmp(key, mca, n) == 0);
}

void tune_strip(char **argv, const char *const *vars, int n, char *removed, size_t len)
{
    removed[0] = '\0';
    int out = 0;
    for (int i = 0; argv[i];) {
        const char *a = argv[i];
        int pair = (strcmp(a, "--mca") == 0 || strcmp(a, "-mca") == 0 || strcmp(a, "-genv") == 0 ||
                    strcmp(a, "-env") == 0) &&
                   argv[i + 1] && argv[i + 2];
        int single = strcmp(a, "-x") == 0 && argv[i + 1];
        int hit = 0;
        for (int k = 0; (pair || single) && k < n; k++)
            hit |= names(argv[i + 1], vars[k]);
        if (hit) {
            size_t at = strlen(removed);
            snprintf(removed + at, len - at, "%s%s %s%s%s", at ? ", " : "", a, argv[i + 1],
                     pair ? " " : "", pair ? argv[i + 2] : "");
            i += pair ? 3 : 2;
            continue;
        }
        argv[out++] = argv[i++];
    }
    argv[out] = NULL;
}

int tune_apply(const char *dir, char **argv)
{
    char path[4200], line[4096];
    snprintf(path, sizeof path, "%s/settings.env", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_fail("run",
                        "--tune %s: cannot read %s (%s); give the directory `mpilens "
                        "tune` wrote (RUN/tune)",
                        dir, path, strerror(errno));
    const char *vars[64];
    char *owned[64];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *eq = strchr(line, '=');
        if (!eq || eq == line || n == 64) {
            fclose(f);
            return cli_fail("run", "--tune: %s:%d: not NAME=VALUE; write `mpilens tune` again",
                            path, lineno);
        }
        *eq = '\0';
        const char *before = getenv(line);
        if (before && strcmp(before, eq + 1) != 0)
            fprintf(stderr, "mpilens: run: --tune sets %s=%s (the environment had %s)\n", line,
                    eq + 1, before);
        else if (!before)
            fprintf(stderr, "mpilens: run: --tune sets %s=%s\n", line, eq + 1);
        setenv(line, eq + 1, 1);
        vars[n] = owned[n] = strdup(line);
        n++;
    }
    fclose(f);
    char removed[2048];
    tune_strip(argv, vars, n, removed, sizeof removed);
    if (removed[0])
        fprintf(stderr, "mpilens: run: --tune overrides the launcher line's %s\n", removed);
    for (int k = 0; k < n; k++)
        free(owned[k]);
    return 0;
}
