/* SPDX-License-Identifier: BSD-3-Clause */
/* record_text.h: a JSON text built in the caller's fixed buffer (the record is small:
 * docs/summary.md; no allocation, so a signal handler may build it), with strings escaped.
 * Each call appends; a text that does not fit is marked failed.
 */
#ifndef RECORD_TEXT_H
#define RECORD_TEXT_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct record_text {
    char *text; /* the caller's buffer of cap bytes */
    size_t len, cap;
    int failed, first; /* first: no member written yet in the open object or array */
};
void record_text_open(struct record_text *j, const char *key, char bracket); /* key NULL: a value */
void record_text_close(struct record_text *j, char bracket);
void record_text_string(struct record_text *j, const char *key, const char *value); /* NULL: null */
void record_text_int(struct record_text *j, const char *key, int64_t value);
void record_text_uint(struct record_text *j, const char *key, uint64_t value);
void record_text_number(struct record_text *j, const char *key,
                        double value); /* 6 significant digits */
void record_text_epoch(struct record_text *j, const char *key, double value); /* 3 decimals */

#pragma GCC visibility pop

#endif
