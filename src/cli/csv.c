/* csv.c: a field of the CLI's CSV output (cli.h), quoted as RFC 4180 has it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_csv_field(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}
