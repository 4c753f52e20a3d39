/* SPDX-License-Identifier: BSD-3-Clause */
/* site_names.h: a call site named from the debug information of the object it lies in
 * (function, file, line, libdw), or from the core's Python label ("python:FILE:FUNCTION:LINE",
 * mpilens_site_label). The profile names its sites with it at rank 0, the summary its top
 * ones; each compiles its own copy.
 */
#ifndef LENS_SITE_NAMES_H
#define LENS_SITE_NAMES_H

#include <stdint.h>

#include "lens_hidden.h"

struct lens_site_name {
    char function[256], file[512]; /* "?" and "" when the object has no debug information */
    int line;                      /* 0: not known */
};

/* The objects opened so far, each once (offline, libdw lays them out one after the other). */
struct lens_site_namer;
LENS_HIDDEN struct lens_site_namer *lens_site_namer_new(void); /* NULL without memory */
/* Function, file and line of OFFSET in the object at PATH, or of a Python label in PATH.
 * NAMER may be NULL (then only labels are named). */
LENS_HIDDEN void lens_site_name(struct lens_site_namer *namer, const char *path, uint64_t offset,
                                struct lens_site_name *n);
LENS_HIDDEN void lens_site_namer_free(struct lens_site_namer *namer);

#endif
