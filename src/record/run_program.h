/* SPDX-License-Identifier: BSD-3-Clause */
/* run_program.h: the program of a run's command line (the profile's "Run command"), as the
 * summary module reads its own from /proc/self: the executable's path (found on PATH as
 * the launcher found it), a Python interpreter's script, and the executable's ELF build id
 * read from the file.
 */
#ifndef RUN_PROGRAM_H
#define RUN_PROGRAM_H

#include <stddef.h>

/* COMMAND's program into PATH and, for a Python interpreter, its script ("-m MODULE", "-c",
 * or the script's path) into SCRIPT ("" otherwise). */
void run_program_of(const char *command, char *path, size_t plen, char *script, size_t slen);
/* PATH's NT_GNU_BUILD_ID note as hex into OUT (RECORD_BUILD_ID_HEX bytes), or "". */
void run_program_build_id(const char *path, char *out);

#endif
