/* SPDX-License-Identifier: BSD-3-Clause */
/* lens_functions.h: the table of MPI function names the core wraps, generated at build
 * time from the installed mpi.h (build/gen/lens_functions.c), sorted by name. The loader
 * uses it to find which functions a module wraps; the CLI uses it to describe modules.
 */
#ifndef LENS_FUNCTIONS_H
#define LENS_FUNCTIONS_H

extern const int lens_function_count;
extern const char *const lens_function_names[];

/* Index of an MPI function name ("MPI_Send") in the table, or -1. */
int lens_function_index(const char *name);

#endif
