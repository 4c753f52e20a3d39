/* SPDX-License-Identifier: BSD-3-Clause */
/* html.c: text escaped for the CLI's HTML and SVG pages, and their closing (html.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "html.h"

void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *entity = *s == '<'   ? "&lt;"
                             : *s == '>' ? "&gt;"
                             : *s == '&' ? "&amp;"
                             : *s == '"' ? "&quot;"
                                         : NULL;
        if (entity)
            fputs(entity, f);
        else
            fputc(*s, f);
    }
}

FILE *html_open_page(const char *path, const char *title, const char *style)
{
    FILE *f = fopen(path, "w");
    if (f)
        fprintf(f,
                "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n"
                "<style>%s</style></head><body>\n<h1>%s</h1>\n",
                title, style, title);
    return f;
}

int html_close_page(FILE *f, const char *path)
{
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) {
        int why = errno;
        unlink(path);
        errno = why ? why : EIO;
    }
    return bad ? -1 : 0;
}
