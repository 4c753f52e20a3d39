/* html.c: text escaped for the CLI's HTML and SVG pages, and their closing (html.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "html.h"

void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
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
