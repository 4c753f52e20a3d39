/* rules_writer.c: writes an Open MPI rules file with src/cli/tune_rules.c from the command
 * line, for tests/tune/test_tune.sh: rules_writer OUT OP:SIZE:MSG:ALG... */
#include <stdio.h>
#include <string.h>

#include "tune_rules.h"

int main(int argc, char **argv)
{
    struct tune_rule rules[64];
    int n = 0;
    for (int i = 2; i < argc && n < 64; i++, n++)
        if (sscanf(argv[i], "%47[^:]:%d:%ld:%d", rules[n].op, &rules[n].size, &rules[n].msg,
                   &rules[n].alg) != 4)
            return 2;
    FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;
    if (!f || tune_write_ompi_rules(rules, n, f) != 0)
        return 1;
    return fclose(f) != 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
