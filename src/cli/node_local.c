/* SPDX-License-Identifier: BSD-3-Clause */
/* node_local.c: the records a run's ranks left in node-local copies of its directory (DIR
 * on /tmp of each node), brought to DIR after a job that died before MPI_Finalize could
 * bring them (src/core/output_share.c; DIR/node-local lists the hosts and their ranks).
 * mpilens-collect is started under a launcher with the core preloaded: one rank per node
 * is enough, the core does the rest. `mpilens run` does it under the run's own launcher,
 * one rank per host; `mpilens recover DIR -- LAUNCHER...` under the launcher given.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "run_job.h"

/* DIR/node-local's hosts and ranks, as "node2 (ranks 2 3), node3 (ranks 4 5)"; its line
 * count (0: no such file). */
static int node_local_hosts(const char *dir, char *out, size_t len)
{
    char path[4200], line[4096];
    snprintf(path, sizeof path, "%s/node-local", dir);
    FILE *f = fopen(path, "r");
    int n = 0;
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *ranks = strchr(line, ' ');
        if (ranks)
            *ranks++ = '\0';
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s:%s (rank%s %s)", n ? ", " : "", line, dir,
                 ranks && strchr(ranks, ' ') ? "s" : "", ranks ? ranks : "?");
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

int cli_collect(const char *dir, char **launcher)
{
    char program[4200], core[4200], absolute[4096];
    snprintf(program, sizeof program, "%s/../bin/mpilens-collect", cli_libdir());
    snprintf(core, sizeof core, "%s/libmpilens.so", cli_libdir());
    if (!realpath(dir, absolute))
        snprintf(absolute, sizeof absolute, "%s", dir);
    int n = 0;
    while (launcher[n])
        n++;
    char **line = calloc((size_t)n + 2, sizeof *line);
    if (!line)
        return -1;
    for (int i = 0; i < n; i++)
        line[i] = launcher[i];
    line[n] = program;
    /* the job's environment: the core, the directory, nothing of a run's modules */
    static const char *const saved_names[] = {"LD_PRELOAD",  "MPILENS_OUTPUT",  "MPILENS_COLLECT",
                                              "MPILENS_CLI", "MPILENS_MODULES", "MPILENS_CONF"};
    enum { NSAVED = sizeof saved_names / sizeof *saved_names };
    char *saved[NSAVED];
    for (int i = 0; i < NSAVED; i++) {
        const char *v = getenv(saved_names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    setenv("LD_PRELOAD", core, 1);
    setenv("MPILENS_OUTPUT", absolute, 1);
    setenv("MPILENS_COLLECT", "1", 1);
    setenv("MPILENS_CLI", "1", 1);
    unsetenv("MPILENS_MODULES");
    unsetenv("MPILENS_CONF");
    char **command = cli_forwarding_command(line);
    int signal_received = 0, code = command ? run_job(command, NULL, &signal_received) : -1;
    for (int i = 0; i < NSAVED; i++) {
        if (saved[i])
            setenv(saved_names[i], saved[i], 1);
        else
            unsetenv(saved_names[i]);
        free(saved[i]);
    }
    free(command);
    free(line);
    return code == 0 ? 0 : -1;
}

int cli_collect_after_job(const char *dir, char **command, int code, char *why, size_t n)
{
    char hosts[3000];
    int nhosts = node_local_hosts(dir, hosts, sizeof hosts);
    if (nhosts == 0 || code == 0)
        return 0; /* every rank shares DIR, or MPI_Finalize brought everything */
    char launcher[8192], count[16], *words[140];
    cli_launcher_part(command, launcher, sizeof launcher);
    int k = cli_line_split(launcher, words, 128);
    snprintf(count, sizeof count, "%d", nhosts + 1); /* rank 0's host too */
    const char *base = k ? strrchr(words[0], '/') ? strrchr(words[0], '/') + 1 : words[0] : "";
    if (k == 0) {
        /* no launcher known */
    } else if (strcmp(base, "srun") == 0) {
        words[k++] = "-N", words[k++] = count, words[k++] = "--ntasks-per-node=1";
        words[k++] = "-n", words[k++] = count;
    } else if (cli_is_open_mpi_launcher(words[0])) {
        words[k++] = "--map-by", words[k++] = "ppr:1:node", words[k++] = "-np";
        words[k++] = count;
    } else { /* Hydra */
        words[k++] = "-ppn", words[k++] = "1", words[k++] = "-n", words[k++] = count;
    }
    words[k] = NULL;
    if (k > 0) {
        fprintf(stderr, "mpilens: the job ended before MPI_Finalize: bringing what %s kept\n",
                hosts);
        if (cli_collect(dir, words) == 0)
            return 1;
    }
    snprintf(why, n,
             "%s kept what those ranks saved; `mpilens recover %s -- LAUNCHER` (one rank a "
             "node) brings it here and merges it",
             hosts, dir);
    return -1;
}
