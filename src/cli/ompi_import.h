/* SPDX-License-Identifier: BSD-3-Clause */
/* ompi_import.h: put Open MPI monitoring's own matrix (its PREFIX.RANK.prof files) into the
 * run database beside the monitor's, as kinds lib_p2p ("E" lines: the application's
 * point-to-point as the library saw it) and lib_coll ("I" lines: collectives and one-sided
 * traffic as the library really transported them, decomposed into point-to-point).
 */
#ifndef LENS_OMPI_IMPORT_H
#define LENS_OMPI_IMPORT_H

#include <stddef.h>

/* Reads PREFIX.RANK.prof and writes them into DIR/mpilens.db (phase "run"), replacing an
 * earlier import. Returns the number of matrix rows written, or -1 with a message in err. */
int ompi_import(const char *dir, const char *prefix, char *err, size_t errlen);

#endif
