/* sum_json.h: a JSON text built in the caller's fixed buffer (the record is small:
 * docs/summary.md; no allocation, so a signal handler may build it), with strings escaped.
 * Each call appends; a text that does not fit is marked failed.
 */
#ifndef SUM_JSON_H
#define SUM_JSON_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct sum_json {
    char *text; /* the caller's buffer of cap bytes */
    size_t len, cap;
    int failed, first; /* first: no member written yet in the open object or array */
};
void sum_json_open(struct sum_json *j, const char *key, char bracket); /* key NULL: a value */
void sum_json_close(struct sum_json *j, char bracket);
void sum_json_string(struct sum_json *j, const char *key, const char *value); /* NULL: null */
void sum_json_int(struct sum_json *j, const char *key, int64_t value);
void sum_json_uint(struct sum_json *j, const char *key, uint64_t value);
void sum_json_number(struct sum_json *j, const char *key, double value); /* 6 significant digits */
void sum_json_epoch(struct sum_json *j, const char *key, double value);  /* 3 decimals */

#pragma GCC visibility pop

#endif
