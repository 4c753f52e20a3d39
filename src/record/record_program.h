/* SPDX-License-Identifier: BSD-3-Clause */
/* record_program.h: what the record says of the program, read alike by its two writers: the
 * summary module from its own process (/proc/self, the loaded program's notes) and `mpilens
 * run` from the run's command line and the executable's file (run_program.h). Nothing here
 * allocates.
 */
#ifndef RECORD_PROGRAM_H
#define RECORD_PROGRAM_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

#define RECORD_BUILD_ID_HEX 65 /* bytes of a build id as hex: at most 32 bytes, and '\0' */

/* The NT_GNU_BUILD_ID note among the ELF notes NOTES (LEN bytes, a PT_NOTE segment) as hex
 * into OUT (RECORD_BUILD_ID_HEX bytes); 1 found, 0 not (OUT untouched). */
int record_build_id_in_notes(const void *notes, size_t len, char *out);
/* Whether PROGRAM's file name is a Python interpreter's ("python3", "python3.11"). */
int record_is_python(const char *program);
/* A Python interpreter's script from its arguments after the interpreter (ARGS, N of
 * them): "-m MODULE", "-c", or the first argument that is not an option, as a real path;
 * "" if none. */
void record_python_script(const char *const *args, int n, char *out, size_t len);

#pragma GCC visibility pop

#endif
