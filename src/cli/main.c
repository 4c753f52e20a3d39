/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c: the `mpilens` command: parse the verb and hand over to its file (options as
 * `--option value` or `--option=value`: cli_args.c).
 * Errors print one line "mpilens: ..." and exit with status 2.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text_nearest.h"
#include "mpilens.h"

static const char usage[] =
    "usage: mpilens VERB [options]\n"
    "\n"
    "Run an unmodified MPI application under a stack of PMPI tools (modules) and read\n"
    "what they measured.\n"
    "\n"
    "verbs:\n"
    "  run      run an MPI job with modules stacked: mpilens run -m a,b -- mpirun -np 4 ./app\n"
    "  modules  list the modules mpilens can find, with what each does\n"
    "  report   the communicator-centric profile of a run: mpilens report RUN/mpilens.db\n"
    "  matrix   who sent how much to whom (monitor module): mpilens matrix RUN/mpilens.db\n"
    "  top      watch a running job (mpilens run --snapshot 1 ...): mpilens top RUN\n"
    "  diff     what changed between two runs, beyond the noise: mpilens diff RUN_A RUN_B\n"
    "  place    a better rank-to-core mapping from the matrix: mpilens place RUN/mpilens.db\n"
    "  tune     collective algorithms for the run's own collectives: mpilens tune RUN -- mpirun\n"
    "  analyze  wait states of a traced run by parallel replay: mpilens analyze RUN\n"
    "  export   a run's trace for viewers: mpilens export RUN --chrome out.json\n"
    "  recover  merge what the ranks of an interrupted run saved: mpilens recover RUN\n"
    "  scaling  the POP scaling table of runs at several rank counts: mpilens scaling RUN...\n"
    "  site     a site's jobs in one store: mpilens site ingest SPOOL --store STORE\n"
    "\n"
    "options:\n"
    "  -h, --help     this text (mpilens VERB --help for a verb)\n"
    "  --version      print the version\n"
    "\n"
    "environment (what `run` sets; usable directly with LD_PRELOAD=.../libmpilens.so):\n"
    "  MPILENS_MODULES      name1,name2:key=value  modules in stack order\n"
    "  MPILENS_CONF         config file (default ./.mpilens.conf, then ~/.mpilens.conf)\n"
    "  MPILENS_MODULE_PATH  extra directories to search for modules (colon-separated)\n"
    "  MPILENS_OUTPUT       the run's output directory\n";

int main(int argc, char **argv)
{
    argv = cli_gnu_args(argc, argv, &argc);
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("mpilens %s\n", MPILENS_VERSION);
        return 0;
    }
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } verbs[] = {{"run", cli_run},         {"analyze", cli_analyze}, {"export", cli_export},
                 {"place", cli_place},     {"matrix", cli_matrix},   {"report", cli_report},
                 {"modules", cli_modules}, {"recover", cli_recover}, {"diff", cli_diff},
                 {"top", cli_top},         {"tune", cli_tune},       {"site", cli_site},
                 {"scaling", cli_scaling}};
    const char *names[sizeof verbs / sizeof *verbs];
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++) {
        if (strcmp(argv[1], verbs[i].name) == 0)
            return verbs[i].run(argc - 1, argv + 1);
        names[i] = verbs[i].name;
    }
    const char *near = lens_nearest(argv[1], names, (int)(sizeof verbs / sizeof *verbs));
    if (near)
        fprintf(stderr,
                "mpilens: unknown verb '%s'; did you mean mpilens %s? (`mpilens --help` "
                "lists the verbs)\n",
                argv[1], near);
    else
        fprintf(stderr, "mpilens: unknown verb '%s'; `mpilens --help` lists the verbs\n", argv[1]);
    return 2;
}
