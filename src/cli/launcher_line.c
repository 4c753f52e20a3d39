/* SPDX-License-Identifier: BSD-3-Clause */
/* launcher_line.c: the launcher part of a command line (`mpirun --mca plm_rsh_agent
 * /path/rsh --host a:2,b:2 -np 4 ./app args`), found as the launcher itself parses it,
 * and kept as one string that splits back into the same words (what `mpilens run` records
 * for analyze); whether the launcher is Open MPI's, and the `-x VAR` it then needs so that
 * mpilens's variables reach other nodes (run.c, node_local.c).
 *
 * The application is the first word that is not an option or an option's value. Which
 * options take values, and how many, is known for Open MPI's mpirun/mpiexec (4.1's ORTE and
 * 5's PRRTE: --prtemca, --output...), MPICH's
 * Hydra and Slurm's srun (a value joined with '=' is part of its option); an option not
 * in the tables is taken as a flag. If that first word is not an executable (an unknown
 * option's value), the first later word that is an executable file named with a path is
 * taken instead, as before these tables.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "find_command.h"

/* Options followed by two words (Open MPI's MCA parameters, Hydra's environment). */
static const char *const two_values[] = {"--mca",    "-mca",      "--gmca",   "-gmca",
                                         "--omca",   "--prtemca", "-prtemca", "--pmixmca",
                                         "-pmixmca", "-genv",     "-env",     NULL};
/* Options followed by one word: mpirun's and Hydra's, ... */
static const char *const one_value[] = {
    /* Open MPI */
    "-np", "--np", "-n", "-c", "-H", "--host", "-host", "--hostfile", "-hostfile", "--machinefile",
    "-machinefile", "--default-hostfile", "-x", "--map-by", "-map-by", "--rank-by", "-rank-by",
    "--bind-to", "-bind-to", "-N", "--npernode", "-npernode", "--npersocket", "-npersocket",
    "--ppr", "--cpus-per-proc", "--cpus-per-rank", "--cpu-set", "--cpu-list", "-wdir", "--wdir",
    "-wd", "--prefix", "--path", "--rankfile", "-rf", "--output-filename", "--stdin", "--tune",
    "-am", "--am", "--timeout", "--launch-agent", "--personality", "--preload-files", "--app",
    "--report-uri", "--hnp",
    /* Open MPI 5's mpirun (PRRTE) */
    "--output", "--display", "--runtime-options", "--pset", "--add-hostfile", "--add-host", "--dvm",
    "--dvm-uri", "--num-connect-retries", "--pid", "--tmpdir", "--gpu-support",
    "--debug-daemons-file",
    /* Hydra */
    "-hosts", "-f", "-launcher", "-launcher-exec", "-bootstrap", "-bootstrap-exec", "-rmk", "-ppn",
    "-genvlist", "-envlist", "-configfile", "-iface", "-binding", "-demux", "-errfile-pattern",
    "-outfile-pattern", "-gpus-per-proc", "-usize", "-nameserver", "-ckpointlib", "-ckpoint-prefix",
    "-ckpoint-num", "-profile", NULL};
/* ... and srun's (whose long options also take --opt=value; its -d and -q take a value where
 * mpirun's are flags). */
static const char *const srun_one_value[] = {"-n",
                                             "-c",
                                             "-N",
                                             "-p",
                                             "-w",
                                             "-t",
                                             "-J",
                                             "-o",
                                             "-e",
                                             "-A",
                                             "-C",
                                             "-m",
                                             "-r",
                                             "-D",
                                             "-G",
                                             "-q",
                                             "-d",
                                             "-x",
                                             "--ntasks",
                                             "--nodes",
                                             "--partition",
                                             "--nodelist",
                                             "--time",
                                             "--job-name",
                                             "--output",
                                             "--error",
                                             "--account",
                                             "--mpi",
                                             "--distribution",
                                             "--cpu-bind",
                                             "--mem",
                                             "--mem-per-cpu",
                                             "--ntasks-per-node",
                                             "--cpus-per-task",
                                             "--export",
                                             "--chdir",
                                             "--exclude",
                                             "--constraint",
                                             "--gres",
                                             "--reservation",
                                             "--qos",
                                             "--jobid",
                                             "--dependency",
                                             "--gpus",
                                             "--nodefile",
                                             "--hint",
                                             NULL};

static int listed(const char *const *table, const char *word)
{
    for (int i = 0; table[i]; i++)
        if (strcmp(table[i], word) == 0)
            return 1;
    return 0;
}

/* WORD names an executable: a path to one, or a name found in PATH. */
static int executable(const char *word)
{
    char found[8192];
    return lens_find_command(word, found, sizeof found);
}

int cli_program_index(char **command)
{
    if (!command[0] || !command[1])
        return -1;
    const char *base = strrchr(command[0], '/') ? strrchr(command[0], '/') + 1 : command[0];
    const char *const *values = strcmp(base, "srun") == 0 ? srun_one_value : one_value;
    int first = -1;
    for (int i = 1; command[i]; i++) {
        const char *w = command[i];
        if (w[0] != '-') {
            first = i;
            break;
        }
        if (strchr(w, '='))
            continue;
        if (listed(two_values, w))
            i += 2;
        else if (listed(values, w))
            i += 1;
        if (!command[i])
            break;
    }
    if (first >= 0 && executable(command[first]))
        return first;
    for (int i = 1; command[i]; i++) /* an option of unknown arity: the first executable */
        if (command[i][0] != '-' && strchr(command[i], '/') && lens_runnable(command[i]))
            return i;
    return first;
}

const char *cli_program_name(char **command)
{
    int i = cli_program_index(command);
    const char *word = i >= 0 ? command[i] : command[0];
    const char *base = strrchr(word, '/');
    return base ? base + 1 : word;
}

/* A word needs quotes unless it is made of these only. */
static int plain(const char *w)
{
    if (!*w)
        return 0;
    for (; *w; w++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    "-_./:,=+@%^",
                    *w))
            return 0;
    return 1;
}

void cli_line_append(char *out, size_t len, const char *word)
{
    char quoted[8192];
    size_t q = 0, at = strlen(out);
    if (plain(word)) {
        snprintf(quoted, sizeof quoted, "%s", word);
    } else { /* 'word', each ' in it written '\'' */
        quoted[q++] = '\'';
        for (const char *w = word; *w && q + 6 < sizeof quoted; w++) {
            if (*w == '\'')
                memcpy(quoted + q, "'\\''", 4), q += 4;
            else
                quoted[q++] = *w;
        }
        quoted[q++] = '\'';
        quoted[q] = '\0';
    }
    snprintf(out + at, len - at, "%s%s", at ? " " : "", quoted);
}

int cli_line_split(char *line, char **words, int max)
{
    int n = 0;
    char *in = line, *out = line;
    while (*in && n < max) {
        while (*in == ' ' || *in == '\t')
            in++;
        if (!*in)
            break;
        words[n++] = out;
        while (*in && *in != ' ' && *in != '\t') {
            if (*in == '\'') { /* to the closing quote, as it is */
                for (in++; *in && *in != '\''; in++)
                    *out++ = *in;
                in += *in == '\'';
            } else if (*in == '\\' && in[1]) {
                *out++ = in[1], in += 2;
            } else {
                *out++ = *in++;
            }
        }
        if (*in)
            in++;
        *out++ = '\0';
    }
    return n;
}

/* The launcher and its options, without the rank count (`mpirun --oversubscribe --mca osc
 * pt2pt` of `mpirun -np 4 --oversubscribe --mca osc pt2pt ./app`), for `mpilens analyze`
 * to start its replay the same way (MPILENS_LAUNCHER, recorded in the trace); empty when
 * the application is not found after a launcher. */
void cli_launcher_part(char **command, char *out, size_t len)
{
    int program = cli_program_index(command);
    const char *base = strrchr(command[0], '/') ? strrchr(command[0], '/') + 1 : command[0];
    int srun = strcmp(base, "srun") == 0; /* whose -c is CPUs per task, not the rank count */
    out[0] = '\0';
    for (int i = 0; i < program; i++) {
        if (strcmp(command[i], "-np") == 0 || strcmp(command[i], "-n") == 0 ||
            strcmp(command[i], "--np") == 0 || (!srun && strcmp(command[i], "-c") == 0) ||
            strcmp(command[i], "--ntasks") == 0) {
            i++; /* analyze gives its own */
            continue;
        }
        if (strncmp(command[i], "--ntasks=", 9) == 0 || strncmp(command[i], "--np=", 5) == 0 ||
            (strncmp(command[i], "-n", 2) == 0 && command[i][2] >= '0' && command[i][2] <= '9'))
            continue;                          /* srun's and Hydra's joined forms */
        cli_line_append(out, len, command[i]); /* quoted as needed: analyze splits it */
    }
}

/* 1 if CMD (a name in PATH, or a path) is Open MPI's mpirun. */
int cli_is_open_mpi_launcher(const char *cmd)
{
    char resolved[PATH_MAX], found[PATH_MAX];
    /* a path is taken as it is; a name must be found in PATH */
    if ((!lens_find_command(cmd, found, sizeof found) && !strchr(cmd, '/')) ||
        !realpath(found, resolved))
        return 0;
    const char *base = strrchr(resolved, '/') + 1;
    return strcmp(base, "orterun") == 0 || strcmp(base, "prterun") == 0 ||
           strstr(resolved, "openmpi");
}

/* The command with Open MPI's `-x VAR` flags inserted after the launcher. */
char **cli_forwarding_command(char **command)
{
    static const char *const vars[] = {
        "LD_PRELOAD",       "MPILENS_MODULES",  "MPILENS_CONF",
        "MPILENS_OUTPUT",   "MPILENS_CLI",      "MPILENS_MODULE_PATH",
        "MPILENS_SNAPSHOT", "MPILENS_LAUNCHER", "MPILENS_TRACE_CONVERT",
        "MPILENS_COLLECT"};
    int n = 0;
    while (command[n])
        n++;
    char **out = calloc(n + 2 * (sizeof vars / sizeof *vars) + 1, sizeof *out);
    int o = 0;
    out[o++] = command[0];
    if (cli_is_open_mpi_launcher(command[0])) {
        for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
            if (getenv(vars[v])) {
                out[o++] = "-x";
                out[o++] = (char *)vars[v];
            }
        }
    }
    for (int i = 1; i < n; i++)
        out[o++] = command[i];
    return out;
}
