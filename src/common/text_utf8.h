/* SPDX-License-Identifier: BSD-3-Clause */
/* text_utf8.h: text from outside (a record a user wrote, a name a program chose) made safe
 * to keep and to show: UTF-8 checked, cut only between characters, and control characters
 * written as escapes so that no terminal, log line or CSV reader acts on them. The site
 * store's reader (src/record), its ingest and its tables (src/site) share them.
 */
#ifndef LENS_TEXT_UTF8_H
#define LENS_TEXT_UTF8_H

#include <stddef.h>

/* Whether the LEN bytes at S are well-formed UTF-8 (no overlong forms, no surrogates, no
 * code point above U+10FFFF); if not, the offset of the first bad byte in *BAD_AT. */
int lens_utf8_valid(const char *s, size_t len, size_t *bad_at);

/* SRC (UTF-8) into DST of N bytes, cut where a character ends when it does not fit. */
void lens_utf8_copy(char *dst, size_t n, const char *src);

/* SRC into DST of N bytes with every control character (C0, DEL, C1) as \xNN (and a
 * backslash as \\): safe on a terminal and in a one-line log. Cut between characters or
 * escapes when it does not fit. */
void lens_escape_controls(char *dst, size_t n, const char *src);

#endif
