/* cli.h: what the verbs of the `mpilens` command share: where the installation lies,
 * and the verb entry points (one file per verb).
 */
#ifndef LENS_CLI_H
#define LENS_CLI_H

#include <stddef.h>

/* Directory holding libmpilens.so (and its mpilens/ module folder), found from the
 * location of this executable: BIN/../lib. */
const char *cli_libdir(void);
/* 1 if argv asks for help (-h or --help anywhere before "--"). */
int cli_wants_help(int argc, char **argv);

/* 1 if path is a directory. */
int cli_is_directory(const char *path);

int cli_run(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_matrix(int argc, char **argv);
int cli_place(int argc, char **argv);
int cli_modules(int argc, char **argv);

#endif
