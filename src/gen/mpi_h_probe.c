/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_h_probe.c: preprocessed at build time so gen_wrappers.py sees the installed mpi.h. */
#include <mpi.h>
