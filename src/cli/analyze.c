/* analyze.c: `mpilens analyze RUN`: start the parallel replay (mpilens-analyze, an MPI
 * program) with as many ranks as the traced run had, through mpirun or the launcher given.
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "trace_reader.h"

static const char usage[] =
    "usage: mpilens analyze RUN [--launcher \"mpirun ...\"]\n"
    "\n"
    "Finds the wait states of a traced run (module `trace`) by replaying its communication\n"
    "on as many ranks as it had; every rank reads only its own trace. Patterns: Late Sender,\n"
    "Late Receiver, Wait at N x N, Wait at Barrier, Late Broadcast, Early Reduce. Results go\n"
    "into RUN/mpilens.db; read them with mpilens report --waits RUN.\n"
    "\n"
    "  --launcher CMD   how to start MPI programs (default: mpirun); -np N and the program\n"
    "                   are appended\n";

int cli_analyze(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return 0;
    }
    const char *run = NULL, *launcher = "mpirun";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--launcher") == 0 && i + 1 < argc)
            launcher = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "mpilens: analyze: unknown or incomplete option '%s'; see "
                    "`mpilens analyze --help`\n",
                    argv[i]);
            return 2;
        } else
            run = argv[i];
    }
    if (!run) {
        fprintf(stderr, "mpilens: analyze: no run given; write mpilens analyze RUN_DIR\n");
        return 2;
    }
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", run);
    uint64_t ranks = 0;
    OTF2_Reader *reader = trace_reader_open(anchor, &ranks);
    if (!reader || ranks == 0) {
        if (reader)
            OTF2_Reader_Close(reader);
        fprintf(stderr,
                "mpilens: analyze: %s: no readable trace; run with the trace module "
                "(mpilens run -m trace ...)\n",
                anchor);
        return 2;
    }
    char why[8500];
    int problem = trace_missing_problem(run, ranks, why, sizeof why) ||
                  trace_format_problem(reader, anchor, "analyze", why, sizeof why);
    OTF2_Reader_Close(reader);
    if (problem) {
        fprintf(stderr, "mpilens: analyze: %s\n", why);
        return 2;
    }
    char program[4096], np[32];
    snprintf(program, sizeof program, "%s/../bin/mpilens-analyze", cli_libdir());
    snprintf(np, sizeof np, "%llu", (unsigned long long)ranks);
    char *copy = strdup(launcher), *save = NULL, *args[64];
    int n = 0;
    for (char *w = strtok_r(copy, " ", &save); w && n < 58; w = strtok_r(NULL, " ", &save))
        args[n++] = w;
    args[n++] = "-np";
    args[n++] = np;
    args[n++] = program;
    args[n++] = (char *)run;
    args[n] = NULL;
    pid_t child = fork();
    if (child == 0) {
        execvp(args[0], args);
        fprintf(stderr, "mpilens: analyze: cannot start '%s'; give --launcher\n", args[0]);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    free(copy);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
