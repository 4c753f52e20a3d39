/* SPDX-License-Identifier: BSD-3-Clause */
/* record_json.h: a small JSON reader for summary.json records (at most a few KiB; the site
 * store ingests them, `mpilens scaling --summary` reads them): the whole text parsed into a tree of
 * nodes in one allocation; values looked up by key or index. Strict (RFC 8259): a trailing comma, a
 * bad escape or anything after the value is an error with its byte offset.
 */
#ifndef RECORD_JSON_H
#define RECORD_JSON_H

#include <stddef.h>

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_kind kind;
    double number;      /* JSON_NUMBER, JSON_BOOL (0 or 1) */
    char *string;       /* JSON_STRING (decoded, NUL-ended); an object member's key */
    char *key;          /* the member's key when this node is an object's member */
    struct json *child; /* JSON_ARRAY, JSON_OBJECT: the first element or member */
    struct json *next;  /* the next sibling */
};

/* Parses TEXT (LEN bytes): the root, to be freed with json_free, or NULL with ERR set. */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(struct json *root);
/* The member KEY of an object (NULL if absent or not an object); the element I of an array. */
const struct json *json_get(const struct json *obj, const char *key);
const struct json *json_at(const struct json *arr, int i);
/* A member's string (NULL when absent, null or not a string) or number (DEFAULT when absent
 * or not a number). */
const char *json_str(const struct json *obj, const char *key);
double json_num(const struct json *obj, const char *key, double otherwise);

#endif
