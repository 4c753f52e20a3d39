/* SPDX-License-Identifier: BSD-3-Clause */
/* text_fields.h: one field of the text the readers print for scripts, written the one way
 * everywhere: a CSV field quoted as RFC 4180 has it, a JSON string escaped. The CLI, the
 * scaling table (src/pop) and the site store's tables (src/site) share them.
 */
#ifndef LENS_TEXT_FIELDS_H
#define LENS_TEXT_FIELDS_H

#include <stdio.h>

/* TEXT as a CSV field: as it is, or in double quotes (doubled inside) when it holds a comma,
 * a quote, a newline or a carriage return. */
void lens_csv_field(FILE *out, const char *text);
/* TEXT as a JSON string, quotes included: " and \ escaped, control characters as \uXXXX. */
void lens_json_string(FILE *out, const char *text);

#endif
