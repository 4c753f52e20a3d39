/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_cli.h: `mpilens scaling` (pop_cli.c), and the table of a list of runs for the sweep
 * of `mpilens run --ranks`.
 */
#ifndef LENS_POP_CLI_H
#define LENS_POP_CLI_H

#include <stdio.h>

struct pop_scaling_options {
    int weak, force, csv, json, summary;
    const char *ref;  /* the reference run, or NULL: the fewest ranks */
    const char *html; /* the page, or NULL */
};

/* The table of RUNS (directories or databases) on OUT, and the page; 0, or 2 said. */
int pop_scaling_runs(char **runs, int n, const struct pop_scaling_options *o, FILE *out);
int cli_scaling(int argc, char **argv);

#endif
