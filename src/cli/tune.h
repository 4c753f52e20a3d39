/* SPDX-License-Identifier: BSD-3-Clause */
/* tune.h: `mpilens tune` (tune.c) and what `mpilens run --tune` takes from it (tune_line.c).
 */
#ifndef LENS_TUNE_H
#define LENS_TUNE_H

#include <stddef.h>

enum tune_mpi { TUNE_OPEN_MPI, TUNE_MPICH };

/* The variable that selects OP's algorithm: OMPI_MCA_coll_tuned_allreduce_algorithm or
 * MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM. */
void tune_variable(enum tune_mpi mpi, const char *op, char *out, size_t len);
/* ARGV (a launcher line, NULL-ended) without the settings of the environment variables
 * NAMES (N of them) it gives the library: Open MPI's `--mca KEY VALUE` / `-mca` / `-x
 * NAME=...`, MPICH Hydra's `-genv NAME VALUE` / `-env NAME VALUE`. What went is said in
 * REMOVED ("--mca coll_tuned_allreduce_algorithm 1, ..."). ARGV is changed in place. */
void tune_strip(char **argv, const char *const *names, int n, char *removed, size_t len);
/* `mpilens run --tune DIR`: the settings of DIR/settings.env into this process's
 * environment (the job inherits it), each one's former value said, and removed from the
 * launcher line ARGV where it sets them itself. 0, or 2 with the reason said. */
int tune_apply(const char *dir, char **argv);

#endif
