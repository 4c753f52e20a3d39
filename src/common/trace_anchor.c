/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_anchor.c: the anchor file of an OTF2 archive (traces.otf2) parsed field by field,
 * in the order OTF2 3.0's OTF2_AnchorFile_Load reads it, before OTF2 sees it. OTF2 checks
 * the structure but trusts some numbers: a property count of 2^31 or more makes its
 * calloc(2 * count, ...) overflow 32 bits and the properties are then written past the
 * array (heap corruption, "double free or corruption"); chunk sizes, rank and definition
 * counts make it reserve gigabytes. Here every number is held against what the file and
 * the archive can hold, and the message names the byte.
 *
 * Layout (endianness from byte 1: 0x42 little, 0x23 big): byte 0 a buffer mark, byte 1
 * the endianness, "OTF2\0", anchor format (1 byte), trace format, OTF2 major, minor and
 * bugfix (1 byte each), event and definition chunk sizes (8 bytes each), file substrate,
 * compression (1 byte each), rank count, global definition count (8 bytes each), machine,
 * creator, description (NUL-terminated strings); from anchor format 2: property count (4
 * bytes), that many name and value strings, trace id (8 bytes); from format 3: snapshot
 * and thumbnail counts (4 bytes each); then the end-of-file mark.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_reader.h"

#define ANCHOR_MAX_BYTES (16L << 20) /* OTF2's anchors are a few hundred bytes */

struct anchor {
    const unsigned char *b;
    size_t size, at;
    int little;
    const char *path;
    char *why;
    size_t n;
};

static int anchor_bad(struct anchor *a, const char *what)
{
    snprintf(a->why, a->n, "%s: corrupt anchor: %s at byte %zu (of %zu); trace the run again",
             a->path, what, a->at, a->size);
    return 1;
}

static uint64_t anchor_uint(struct anchor *a, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)a->b[a->at + i] << (a->little ? 8 * i : 8 * (bytes - 1 - i));
    a->at += (size_t)bytes;
    return v;
}

/* 1 when the next string of A has no terminating NUL before the end of the file. */
static int anchor_string(struct anchor *a, const char *what)
{
    const unsigned char *end = memchr(a->b + a->at, 0, a->size - a->at);
    if (!end)
        return anchor_bad(a, what);
    a->at = (size_t)(end - a->b) + 1;
    return 0;
}

static int anchor_need(struct anchor *a, size_t bytes)
{
    return a->size - a->at < bytes ? anchor_bad(a, "file ends early (truncated)") : 0;
}

/* Event files next to the anchor "DIR/traces.otf2" (DIR/traces/N.evt), counted up to LIMIT. */
static uint64_t anchor_event_files(const char *anchor, uint64_t limit)
{
    size_t len = strlen(anchor);
    uint64_t found = 0;
    char path[4200];
    while (found < limit && len > 5 && len < 4000) {
        snprintf(path, sizeof path, "%.*s/%llu.evt", (int)(len - 5), anchor,
                 (unsigned long long)found);
        if (access(path, F_OK) != 0)
            break;
        found++;
    }
    return found;
}

static long anchor_defs_bytes(const char *anchor)
{
    size_t len = strlen(anchor);
    char path[4200];
    snprintf(path, sizeof path, "%.*s.def", (int)(len > 5 ? len - 5 : 0), anchor);
    FILE *f = fopen(path, "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (f)
        fclose(f);
    return size;
}

/* The numbers of the fixed part: chunk sizes, substrate, compression, rank and definition
 * counts. */
static int anchor_fixed_part(struct anchor *a)
{
    a->at += 4; /* trace format, OTF2 version */
    for (int i = 0; i < 2; i++) {
        uint64_t chunk = anchor_uint(a, 8);
        if (chunk < OTF2_CHUNK_SIZE_MIN || chunk > OTF2_CHUNK_SIZE_MAX) {
            a->at -= 8;
            char what[160];
            snprintf(what, sizeof what, "%s chunk size %llu (OTF2 writes %llu..%llu)",
                     i == 0 ? "event" : "definition", (unsigned long long)chunk,
                     (unsigned long long)OTF2_CHUNK_SIZE_MIN,
                     (unsigned long long)OTF2_CHUNK_SIZE_MAX);
            return anchor_bad(a, what);
        }
    }
    unsigned substrate = a->b[a->at++];
    if (substrate != OTF2_SUBSTRATE_POSIX && substrate != OTF2_SUBSTRATE_SION &&
        substrate != OTF2_SUBSTRATE_NONE) {
        a->at--;
        return anchor_bad(a, "unknown file substrate");
    }
    unsigned compression = a->b[a->at++];
    if (compression != OTF2_COMPRESSION_NONE && compression != 2 /* zlib */) {
        a->at--;
        return anchor_bad(a, "unknown compression");
    }
    uint64_t ranks = anchor_uint(a, 8);
    uint64_t found = anchor_event_files(a->path, ranks);
    if (ranks > 2 * found + 16) {
        a->at -= 8;
        char what[160];
        snprintf(what, sizeof what, "rank count %llu (%llu event files found)",
                 (unsigned long long)ranks, (unsigned long long)found);
        return anchor_bad(a, what);
    }
    uint64_t defs = anchor_uint(a, 8);
    long def_bytes = anchor_defs_bytes(a->path);
    if (def_bytes >= 0 && defs > (uint64_t)def_bytes) {
        a->at -= 8;
        char what[160];
        snprintf(what, sizeof what, "count of %llu global definitions (traces.def has %ld bytes)",
                 (unsigned long long)defs, def_bytes);
        return anchor_bad(a, what);
    }
    return 0;
}

/* From anchor format 2: the properties and the trace id. */
static int anchor_properties(struct anchor *a)
{
    if (anchor_need(a, 4))
        return 1;
    uint64_t count = anchor_uint(a, 4);
    /* each property is two strings of at least their NUL */
    if (count > (a->size - a->at) / 2) {
        a->at -= 4;
        char what[160];
        snprintf(what, sizeof what, "property count %llu (the file has room for %zu)",
                 (unsigned long long)count, (a->size - a->at - 4) / 2);
        return anchor_bad(a, what);
    }
    for (uint64_t i = 0; i < count; i++)
        if (anchor_string(a, "property name without its end") ||
            anchor_string(a, "property value without its end"))
            return 1;
    if (anchor_need(a, 8))
        return 1;
    a->at += 8;
    return 0;
}

static int anchor_parse(struct anchor *a)
{
    if (a->size < 8 || memcmp(a->b + 2, "OTF2", 5) != 0 || (a->b[1] != 0x42 && a->b[1] != 0x23))
        return 0; /* not an OTF2 anchor: OTF2 says no on its own */
    a->little = a->b[1] == 0x42;
    a->at = 7;
    unsigned format = a->b[a->at++];
    if (format == 0 || format > 3) {
        a->at--;
        return anchor_bad(a, "unknown anchor format (OTF2 3.0 writes 1..3)");
    }
    if (anchor_need(a, 38) || anchor_fixed_part(a))
        return 1;
    for (int i = 0; i < 3; i++)
        if (anchor_string(a, i == 0   ? "machine name without its end"
                             : i == 1 ? "creator without its end"
                                      : "description without its end"))
            return 1;
    if (format > 1 && anchor_properties(a))
        return 1;
    if (format > 2 && anchor_need(a, 8 + 1))
        return 1;
    return 0;
}

int trace_anchor_problem(const char *anchor, char *why, size_t n)
{
    FILE *f = fopen(anchor, "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (!f || size < 0 || size > ANCHOR_MAX_BYTES) {
        if (f)
            fclose(f);
        return 0; /* missing, unreadable or far too large: OTF2 fails on it cleanly */
    }
    unsigned char *bytes = malloc((size_t)size + 1);
    int ok = bytes && fseek(f, 0, SEEK_SET) == 0 && fread(bytes, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    struct anchor a = {.b = bytes, .size = (size_t)size, .path = anchor, .why = why, .n = n};
    /* MPILENS_TRACE_TRUST_ANCHOR=1 skips the check (tests use it to see that a fault in
     * OTF2 stays inside trace_check_run's child) */
    const char *trust = getenv("MPILENS_TRACE_TRUST_ANCHOR");
    int bad = ok && !(trust && strcmp(trust, "1") == 0) && anchor_parse(&a);
    free(bytes);
    return bad;
}
