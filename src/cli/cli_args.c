/* SPDX-License-Identifier: BSD-3-Clause */
/* cli_args.c: the command line as users type it (cli.h): GNU's `--option=value` taken as
 * `--option value`, and a suggestion for a misspelt verb, option or module ("did you mean
 * --sort?"), from the nearest word (text_nearest.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text_nearest.h"

const char *cli_option_hint(const char *arg, const char *usage)
{
    static char hint[96];
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
    /* the long options USAGE names */
    const char *options[128];
    char names[128][40];
    int n = 0;
    for (const char *at = strstr(usage, "--"); at && n < 128; at = strstr(at + 2, "--")) {
        size_t len = 2 + strspn(at + 2, "abcdefghijklmnopqrstuvwxyz-");
        if (len <= 2 || len >= sizeof names[0] ||
            (at > usage && at[-1] != ' ' && at[-1] != '[' && at[-1] != '(' && at[-1] != '|'))
            continue;
        snprintf(names[n], sizeof names[n], "%.*s", (int)len, at);
        options[n] = names[n];
        n++;
    }
    const char *near = lens_nearest(word, options, n);
    if (!near && word[0] == '-' && word[1] != '-') { /* -sort for --sort */
        char dashed[66];
        snprintf(dashed, sizeof dashed, "-%s", word);
        near = lens_nearest(dashed, options, n);
    }
    if (near && strcmp(near, word) != 0)
        snprintf(hint, sizeof hint, " (did you mean %s?)", near);
    else
        hint[0] = '\0';
    return hint;
}

/* Whether the run verb's option A takes the next word as its value. */
static int run_takes_value(const char *a)
{
    static const char *const with_value[] = {
        "-m", "--modules", "-c", "--config", "-o", "--output", "--tune", "--snapshot", "--ranks"};
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
        if (strcmp(a, with_value[k]) == 0)
            return 1;
    return 0;
}

char **cli_gnu_args(int argc, char **argv, int *out_argc)
{
    char **out = calloc((size_t)argc * 2 + 1, sizeof *out);
    if (!out) {
        *out_argc = argc;
        return argv;
    }
    int n = 0, verbatim = 0;
    /* `mpilens run` ends its options at the first word that is not one (the launcher): the
     * launcher's and the application's words are never changed */
    int launcher_verb = argc > 1 && strcmp(argv[1], "run") == 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i >= 2 && !verbatim) {
            if (strcmp(a, "--") == 0)
                verbatim = 1;
            else if (launcher_verb && a[0] != '-' && !run_takes_value(argv[i - 1]))
                verbatim = 1;
        }
        const char *eq = strchr(a, '=');
        if (i >= 2 && !verbatim && strncmp(a, "--", 2) == 0 && eq && eq > a + 2 &&
            strspn(a + 2, "abcdefghijklmnopqrstuvwxyz-") == (size_t)(eq - a - 2)) {
            out[n++] = strndup(a, (size_t)(eq - a));
            out[n++] = (char *)eq + 1;
            continue;
        }
        out[n++] = argv[i];
    }
    out[n] = NULL;
    *out_argc = n;
    return out;
}
