/* SPDX-License-Identifier: BSD-3-Clause */
/* cli.h: what the verbs of the `mpilens` command share: where the installation lies,
 * and the verb entry points (one file per verb).
 */
#ifndef LENS_CLI_H
#define LENS_CLI_H

#include "text_fields.h" /* lens_csv_field: the CSV output's fields */
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* Directory holding libmpilens.so (and its mpilens/ module folder), found from the
 * location of this executable: BIN/../lib. */
const char *cli_libdir(void);
/* launcher_line.c: the index of the application in COMMAND (a launcher line: `mpirun
 * --mca k v -np 4 ./app`), as the launcher parses it, or -1; WORD appended to the
 * space-separated OUT, quoted where the shell would need it; a line of such words split
 * back (in place) into at most MAX WORDS: their count. */
int cli_program_index(char **command);
/* The application's file name in COMMAND (cli_program_index), else the command's own. */
const char *cli_program_name(char **command);
void cli_line_append(char *out, size_t len, const char *word);
int cli_line_split(char *line, char **words, int max);
/* launcher_line.c too: the launcher part of COMMAND without its rank count, quoted
 * (cli_line_append); whether CMD is Open MPI's mpirun; COMMAND with Open MPI's `-x VAR` for
 * mpilens's variables (malloc'ed array, the words shared). */
void cli_launcher_part(char **command, char *out, size_t len);
int cli_is_open_mpi_launcher(const char *cmd);
char **cli_forwarding_command(char **command);
/* node_local.c: mpilens-collect run under LAUNCHER (NULL-ended words, rank count included)
 * brings what ranks left in node-local copies of DIR to it: 0, or -1 (said). After a job
 * of `mpilens run` (COMMAND, status CODE): 0 nothing to bring, 1 brought, -1 not (WHY
 * says where it stayed and how to bring it). */
int cli_collect(const char *dir, char **launcher);
int cli_collect_after_job(const char *dir, char **command, int code, char *why, size_t n);
/* 1 if argv asks for help (-h or --help anywhere before "--"). */
int cli_wants_help(int argc, char **argv);
/* 1 after printing USAGE on stdout when argv asks for help; the verb then returns 0. */
int cli_help(int argc, char **argv, const char *usage);

/* Opens the run database named by arg (the file or its run directory) for `verb`, and
 * checks that it holds `table`, else says which module writes it. 0 with *db open, or 2
 * after one line on stderr. */
int cli_open_db(const char *arg, const char *verb, const char *table, const char *what,
                const char *module, sqlite3 **db, char *path, size_t pathlen);
/* 1 (with ENDING: how its ranks ended) when RUN's database says the run is incomplete: its
 * trace, if any, was recovered and ends where each rank stopped. */
int cli_incomplete_run(const char *run, char *ending, size_t n);
/* One line on stderr, "mpilens: VERB: MESSAGE" ("mpilens: MESSAGE" when VERB is NULL), for
 * a refusal; returns 2, the status of one. */
int cli_fail(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0 when the verb was given its input (GIVEN), else 2 after "mpilens: VERB: no database
 * given; write mpilens VERB RUN_DIR/mpilens.db". */
int cli_need_input(int given, const char *verb);
/* The program of COMMAND (a run's "Run command"): its first word's last component. */
void cli_program_of(const char *command, char *out, size_t len);
/* Whether the run of ARG (its directory, or its database's) holds a trace, converted or
 * waiting for it; its directory into RUN. */
int cli_run_has_trace(const char *arg, char *run, size_t n);
/* 1 if path is a directory. */
int cli_is_directory(const char *path);
/* 1 if NAME (a module as -m or a config file names it, or the file lens_module_find found)
 * is mpilens's MODULE: MODULE itself, or a path to MODULE.so. */
int cli_module_is(const char *name, const char *module);

/* cli_args.c: ARGV with each `--option=value` (before `--`, and before `mpilens run`'s
 * launcher) as two words `--option value` (GNU style, as users type it): a new array
 * (words shared), its count in *OUT_ARGC. */
char **cli_gnu_args(int argc, char **argv, int *out_argc);
/* " (did you mean --sort?)" for ARG, an option USAGE does not name, or "". */
const char *cli_option_hint(const char *arg, const char *usage);

int cli_run(int argc, char **argv);
/* run_sweep.c: `mpilens run --ranks LIST`: a run at each rank count, then the scaling table */
int cli_run_sweep(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_matrix(int argc, char **argv);
int cli_place(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_analyze(int argc, char **argv);
int cli_modules(int argc, char **argv);
int cli_recover(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_top(int argc, char **argv);
int cli_tune(int argc, char **argv);
/* Merges DIR/partial/ into DIR/mpilens.db (recover.c): modules recovered (the run
 * incomplete), or -1; *COMPLETED (unless NULL): modules that had left their merge for
 * after a complete run (the trace's convert=after). */
int cli_recover_run(const char *dir, int *completed);
/* A finished run's trace whose event logs wait for their conversion (RUN/trace/
 * CONVERT-PENDING: a run without mpilens run) converted now, as `mpilens recover RUN` does,
 * with one line said first: readers of the trace call it. 1 converted, 0 nothing waited,
 * -1 failed (said; the logs stay). */
int cli_convert_pending(const char *run, const char *verb);
/* Merges each DIR/pcontrol/K/partial (MPI_Pcontrol(3), (4)) into DIR/pcontrol/K/mpilens.db:
 * how many, with the first and last K; -1 if one failed (said on stderr). */
int cli_recover_intermediate(const char *dir, int *first, int *last);
void cli_say_intermediate(const char *dir, int count, int first, int last);

/* src/site/site_cli.c: `mpilens site` (the site store has its own room). */
int cli_site(int argc, char **argv);
/* src/pop/pop_cli.c: the POP scaling table across runs */
int cli_scaling(int argc, char **argv);

#endif
