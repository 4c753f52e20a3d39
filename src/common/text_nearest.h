/* SPDX-License-Identifier: BSD-3-Clause */
/* text_nearest.h: the word a user most likely meant: the nearest of a list by edit
 * distance (insertions, deletions, replacements, swaps of neighbours), for "did you mean"
 * after a misspelt verb, option (the CLI) or module (the core's module search).
 */
#ifndef LENS_TEXT_NEAREST_H
#define LENS_TEXT_NEAREST_H

/* The word of CHOICES nearest WORD: at most 1 edit away for words up to 4 letters, 2 up to
 * 7, 3 beyond; NULL when none is that near. */
const char *lens_nearest(const char *word, const char *const *choices, int n);

#endif
