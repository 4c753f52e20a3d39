/* SPDX-License-Identifier: BSD-3-Clause */
/* tune_rules.h: the settings files `mpilens tune` writes (tune_rules.c). */
#ifndef LENS_TUNE_RULES_H
#define LENS_TUNE_RULES_H

#include <stdio.h>

/* One measured case's choice: on communicators of SIZE ranks, messages of MSG bytes as
 * Open MPI's coll tuned counts them, algorithm ALG (0: the library's fixed decision). */
struct tune_rule {
    char op[48];
    int size;
    long msg;
    int alg;
};

/* Open MPI's collective id of OP in its rules file (coll_base_functions.h), or -1. */
int tune_ompi_collective(const char *op);
/* The message size coll tuned compares for OP when a rank sends BYTES on SIZE ranks. */
long tune_ompi_msg(const char *op, long bytes, int size);
/* Writes RULES (N) as Open MPI 4.1's classic rules file into F: 0, or -1. */
int tune_write_ompi_rules(const struct tune_rule *rules, int n, FILE *f);

#endif
