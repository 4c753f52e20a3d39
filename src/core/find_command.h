/* SPDX-License-Identifier: BSD-3-Clause */
/* find_command.h: a command word found as the shell finds it: a path as it is, a name in
 * PATH's directories. `mpilens run` checks its launcher line with it, and the run's record
 * names the program the ranks ran (src/record/run_program.c).
 */
#ifndef LENS_FIND_COMMAND_H
#define LENS_FIND_COMMAND_H

#include <stddef.h>

/* 1 if PATH names a regular file this process may execute. */
int lens_runnable(const char *path);
/* WORD as the shell finds a command: WORD itself when it has a '/', else the first runnable
 * WORD in PATH's directories (an empty one: "."), into FOUND; 1 if that is runnable. */
int lens_find_command(const char *word, char *found, size_t len);

#endif
