/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_common.h: what the libFuzzer targets share: the input written to a file in a
 * private temporary directory, since the code under test reads files.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A private directory for this process (made once), e.g. /tmp/mpilens-fuzz.PID. */
static inline const char *fuzz_dir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/mpilens-fuzz.XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    return dir;
}

/* Writes data to DIR/name and returns the path (static storage). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
    return path;
}

#endif
