/* SPDX-License-Identifier: BSD-3-Clause */
/* text_utf8.c: UTF-8 checked, cut between characters, control characters escaped
 * (text_utf8.h). */
#include "text_utf8.h"

#include <stdio.h>
#include <string.h>

/* The length of the well-formed character at S (AVAIL bytes left), or 0. */
static size_t char_length(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range (RFC 3629, section 4) */
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0;
    if (avail < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    return len;
}

int lens_utf8_valid(const char *s, size_t len, size_t *bad_at)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = char_length(u + i, len - i);
        if (!n) {
            if (bad_at)
                *bad_at = i;
            return 0;
        }
        i += n;
    }
    return 1;
}

void lens_utf8_copy(char *dst, size_t n, const char *src)
{
    if (!n)
        return;
    const unsigned char *u = (const unsigned char *)(src ? src : "");
    size_t len = strlen((const char *)u), at = 0;
    while (at < len) {
        size_t c = char_length(u + at, len - at);
        if (!c)
            c = 1; /* not UTF-8: byte by byte (the reader refuses such records first) */
        if (at + c >= n)
            break;
        at += c;
    }
    memcpy(dst, u, at);
    dst[at] = '\0';
}

void lens_escape_controls(char *dst, size_t n, const char *src)
{
    if (!n)
        return;
    const unsigned char *u = (const unsigned char *)(src ? src : "");
    size_t out = 0, len = strlen((const char *)u);
    for (size_t at = 0; at < len;) {
        char piece[16];
        size_t take = char_length(u + at, len - at), plen;
        if (!take) { /* a byte that is not UTF-8: shown, never passed on */
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", u[at]);
            take = 1;
        } else if (u[at] < 0x20 || u[at] == 0x7f) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", u[at]);
        } else if (u[at] == 0xc2 && u[at + 1] < 0xa0) { /* C1: U+0080..U+009F */
            plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", u[at + 1]);
        } else if (u[at] == '\\') {
            plen = (size_t)snprintf(piece, sizeof piece, "\\\\");
        } else {
            memcpy(piece, u + at, take);
            plen = take;
        }
        if (out + plen >= n)
            break;
        memcpy(dst + out, piece, plen);
        out += plen;
        at += take;
    }
    dst[out] = '\0';
}
