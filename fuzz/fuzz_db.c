/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_db.c: libFuzzer target for the readers of the run database (mpilens report, its
 * --waits tree and HTML page, mpilens matrix in every format and its histograms). Each
 * input is a whole mpilens.db file: the seeds (fuzz/corpus/db) are real runs' databases,
 * so mutations land in SQLite pages that hold our rows (negative ranks, NULL or huge
 * counts, NaN times, missing tables). Every command must end with 0 or a one-line error,
 * never crash, divide by zero or loop.
 */
#include "../src/cli/cli.h"
#include "fuzz_common.h"

static void run(int (*verb)(int, char **), char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    verb(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *db = strdup(fuzz_file("mpilens.db", data, size));
    char html[600];
    snprintf(html, sizeof html, "%s/page.html", fuzz_dir());
    char *reports[][8] = {
        {"report", db, NULL},
        {"report", db, "--csv", "--sort", "volume", NULL},
        {"report", db, "--waits", NULL},
        {"report", db, "--waits", "--rank", "1", NULL},
        {"report", db, "--html", html, NULL},
    };
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++)
        run(cli_report, reports[i]);
    static char *const kinds[] = {"p2p", "coll", "rma", "io", "all"};
    static char *const formats[] = {"text", "csv", "svg", "prof"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
            char *argv[] = {"matrix", db, "--kind", kinds[k], "--format", formats[f], NULL};
            run(cli_matrix, argv);
        }
    char *histogram[] = {"matrix", db, "--histogram", "0", NULL};
    run(cli_matrix, histogram);
    char *counts[] = {"matrix", db, "--metric", "count", "--format", "html", NULL};
    run(cli_matrix, counts);
    free(db);
    /* SQLite may leave a journal beside a database it judged hot */
    char journal[600];
    snprintf(journal, sizeof journal, "%s/mpilens.db-journal", fuzz_dir());
    unlink(journal);
    return 0;
}
