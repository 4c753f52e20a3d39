/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_letters.h: the key to the communicators' generated names (LETTER ROOT.COUNTER,
 * docs/database.md): which MPI call each letter stands for, and one line of the letters a
 * view shows, so that the report and the page say what "a0.1" is (commtrack_wrap.c gives
 * the letters).
 */
#ifndef LENS_COMM_LETTERS_H
#define LENS_COMM_LETTERS_H

#include <stddef.h>

/* The call a name's LETTER stands for ("MPI_Cart_create"), or NULL. */
const char *lens_comm_letter_call(char letter);

/* Adds NAME's letter to the set LETTERS (a string of distinct letters, at most 63). */
void lens_comm_letters_add(char *letters, const char *name);

/* "a = MPI_Cart_create, W = MPI_COMM_WORLD" for LETTERS, in that order, into OUT. */
void lens_comm_letters_key(const char *letters, char *out, size_t len);

#endif
