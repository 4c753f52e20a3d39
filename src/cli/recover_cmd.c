/* SPDX-License-Identifier: BSD-3-Clause */
/* recover_cmd.c: the verb `mpilens recover DIR [-- LAUNCHER...]`: what a node-local run's
 * other nodes kept brought over first (node_local.c), then the ranks' saved records merged
 * (recover.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "page.h"

static const char usage[] =
    "usage: mpilens recover DIR [-- LAUNCHER ARGS...]\n"
    "\n"
    "Merges what the ranks of a run that did not reach MPI_Finalize saved (DIR/partial/)\n"
    "into DIR/mpilens.db and marks it incomplete; `mpilens run` does this by itself after\n"
    "such a job. Use it for runs started without the CLI (LD_PRELOAD, batch scripts).\n"
    "It also converts the trace of a complete run traced with trace:convert=after (not\n"
    "marked incomplete), and merges the intermediate results MPI_Pcontrol(3) and (4)\n"
    "wrote (DIR/pcontrol/K/mpilens.db, one per call).\n"
    "\n"
    "  -- LAUNCHER...   first bring what ranks left in node-local copies of DIR (DIR on\n"
    "                   /tmp of each node; DIR/node-local lists them) with one rank on each\n"
    "                   node: mpilens recover /tmp/run -- mpirun --host n1,n2 -np 2\n"
    "\n"
    "  -h, --help   this text\n";

int cli_recover(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    int with_launcher = argc > 3 && strcmp(argv[2], "--") == 0;
    if ((argc != 2 && !with_launcher) || argv[1][0] == '-') {
        fprintf(stderr, "mpilens: recover: give one run directory: mpilens recover DIR [-- "
                        "LAUNCHER...]\n");
        return 2;
    }
    if (with_launcher && cli_collect(argv[1], argv + 3) != 0) {
        fprintf(stderr,
                "mpilens: recover: %s: the collection job failed (said above); nothing was "
                "merged\n",
                argv[1]);
        return 2;
    }
    char partial[4200];
    snprintf(partial, sizeof partial, "%s/partial", argv[1]);
    int first = 0, last = 0, intermediate = cli_recover_intermediate(argv[1], &first, &last);
    cli_say_intermediate(argv[1], intermediate, first, last);
    if (intermediate != 0 && access(partial, F_OK) != 0)
        return intermediate < 0 ? 2 : 0;
    if (!cli_is_directory(argv[1]) || access(partial, F_OK) != 0) {
        fprintf(stderr,
                "mpilens: recover: %s: nothing to recover (no partial/ directory: the run ended "
                "normally, or was recovered already)\n",
                argv[1]);
        return 2;
    }
    int completed = 0, r = cli_recover_run(argv[1], &completed);
    if (r < 0)
        return 2;
    if (r > 0)
        printf("mpilens: %d module(s) recovered; incomplete results in %s/mpilens.db\n", r,
               argv[1]);
    if (completed > 0)
        printf("mpilens: %d module(s) finished what they left for after the job (the trace's "
               "conversion); results in %s\n",
               completed, argv[1]);
    char page[4200]; /* the run's page, as mpilens run would have written it */
    int paged = r > 0 || completed > 0 ? page_write_run(argv[1], page, sizeof page) : 1;
    if (paged == 0)
        printf("mpilens: the run's page: %s\n", page);
    else if (paged < 0)
        fprintf(stderr, "mpilens: recover: the run's page %s could not be written (%s)\n", page,
                strerror(errno));
    return 0;
}
