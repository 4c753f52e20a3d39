/* SPDX-License-Identifier: BSD-3-Clause */
/* find_command.c: a command found as the shell finds it (find_command.h). */
#include "find_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 if PATH names a regular file this process may execute. */
int lens_runnable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* WORD as the shell finds a command: WORD itself when it has a '/', else the first runnable
 * WORD in PATH's directories (an empty one: "."), into FOUND; 1 if that is runnable. */
int lens_find_command(const char *word, char *found, size_t len)
{
    if (strchr(word, '/')) {
        snprintf(found, len, "%s", word);
        return lens_runnable(word);
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(found, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", word);
        if (lens_runnable(found))
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}
