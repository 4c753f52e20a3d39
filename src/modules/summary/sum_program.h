/* SPDX-License-Identifier: BSD-3-Clause */
/* sum_program.h: who and what ran: the program (path, ELF build id, the Python script),
 * the user, the Slurm job and the MPI library, read on the rank that writes the record.
 */
#ifndef SUM_PROGRAM_H
#define SUM_PROGRAM_H

#include "record_program.h"

#pragma GCC visibility push(hidden)

struct sum_program {
    char path[1024];                    /* the executable */
    char build_id[RECORD_BUILD_ID_HEX]; /* hex, "" if none */
    char script[1024];                  /* a Python program's script ("-m MODULE", "-c"), else "" */
    char user[64], host[256];
    long uid;
    char library[256], mpi_version[16];
    char run_id[33]; /* the run's identifier (sum_run.c), hex */
};
void sum_program_read(struct sum_program *p);

#pragma GCC visibility pop

#endif
