/* SPDX-License-Identifier: BSD-3-Clause */
/* record_text.c: the JSON text of the record (record_text.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "record_text.h"

static void put(struct record_text *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n + 1 > j->cap) {
        j->failed = 1;
        return;
    }
    memcpy(j->text + j->len, s, n);
    j->len += n;
    j->text[j->len] = '\0';
}

static __attribute__((format(printf, 2, 3))) void putf(struct record_text *j, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(j, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void quoted(struct record_text *j, const char *s)
{
    put(j, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            put(j, "\\", 1);
            put(j, s, 1);
        } else if (c < 0x20) {
            putf(j, "\\u%04x", c);
        } else {
            put(j, s, 1);
        }
    }
    put(j, "\"", 1);
}

/* The separator and the key of the next member. */
static void member(struct record_text *j, const char *key)
{
    if (!j->first)
        put(j, ", ", 2);
    j->first = 0;
    if (key) {
        quoted(j, key);
        put(j, ": ", 2);
    }
}

void record_text_open(struct record_text *j, const char *key, char bracket)
{
    if (j->len)
        member(j, key);
    put(j, &bracket, 1);
    j->first = 1;
}

void record_text_close(struct record_text *j, char bracket)
{
    put(j, &bracket, 1);
    j->first = 0;
}

void record_text_string(struct record_text *j, const char *key, const char *value)
{
    member(j, key);
    if (value)
        quoted(j, value);
    else
        put(j, "null", 4);
}

void record_text_int(struct record_text *j, const char *key, int64_t value)
{
    member(j, key);
    putf(j, "%lld", (long long)value);
}

void record_text_uint(struct record_text *j, const char *key, uint64_t value)
{
    member(j, key);
    putf(j, "%llu", (unsigned long long)value);
}

void record_text_number(struct record_text *j, const char *key, double value)
{
    member(j, key);
    if (isfinite(value))
        putf(j, "%.6g", value);
    else
        put(j, "null", 4);
}

void record_text_epoch(struct record_text *j, const char *key, double value)
{
    member(j, key);
    putf(j, "%.3f", value);
}
