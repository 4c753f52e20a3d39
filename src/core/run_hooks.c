/* SPDX-License-Identifier: BSD-3-Clause */
/* run_hooks.c: the core's own work at MPI_Init and MPI_Finalize, and the run's output
 * directory.
 *
 * The hooks sit at the bottom of the stack, just above the library: at MPI_Init they run
 * after every module's wrapper has called down, at MPI_Finalize after every module has
 * done its pre-finalize work. When modules are loaded and neither `mpilens run -o` nor
 * MPILENS_OUTPUT names a directory, rank 0 makes PROGRAM-YYYYmmdd-HHMMSS (-2, -3... if a
 * run of the same second has it) at MPI_Init and broadcasts it (MPI_Init is collective
 * anyway), so every rank writes to the same place. Without `mpilens run`, rank 0 also
 * claims the directory there (run_claim.h), so two runs never write into one. Ranks that
 * do not see rank 0's directory (node-local disk) have their files brought over at
 * MPI_Finalize (output_share.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "mpi_objects.h"
#include "dispatch.h"
#include "lens_functions.h"
#include "run_claim.h"


typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);
typedef int (*finalize_fn)(void);

static init_fn real_init;
static init_thread_fn real_init_thread;
static finalize_fn real_finalize;
static char output_dir[PATH_MAX];
static int output_made;      /* the directory exists */
static int output_requested; /* a module on this rank asked for it */
/* mpilens-collect under `mpilens recover DIR -- LAUNCHER`: no module, only the records left
 * in node-local copies of DIR brought to it (output_share.c) */
static int collecting;

lens_voidfn lens_library(const char *name)
{
    return lens_slots[lens_function_index(name)].real;
}

static void default_output_name(char *buf, size_t len)
{
    char exe[PATH_MAX] = "mpi";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        exe[n] = '\0';
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    char cwd[PATH_MAX] = ".";
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, ".");
    char name[PATH_MAX];
    lens_run_name(base, name, sizeof name);
    snprintf(buf, len, "%s/%s", cwd, name);
}

/* Rank 0 of a run without `mpilens run`: NAME claimed (run_claim.h) before any module
 * writes; when another run holds it, NAME-2, -3... is made and claimed instead, and said
 * (the application runs already: its results go next door). The claim is held until this
 * process ends; its file goes at MPI_Finalize. */
static int claim_fd = -1;
static void claim_output(char *name, size_t len)
{
    char holder[LENS_CLAIM_SLOT], base[PATH_MAX - 16];
    if (lens_claim_take(name, &claim_fd, holder, sizeof holder) != 1)
        return; /* taken, or not writable: the modules say what they cannot write */
    snprintf(base, sizeof base, "%s", name);
    for (int n = 2; n < 10000; n++) {
        snprintf(name, len, "%s-%d", base, n);
        if (mkdir(name, 0777) != 0 && errno != EEXIST)
            break;
        int taken = lens_claim_take(name, &claim_fd, holder, sizeof holder);
        if (taken == 0) {
            lens_say("%s: in use by %s; this run's results go to %s", base, holder, name);
            output_made = 1;
            return;
        }
        if (taken < 0)
            break;
    }
    snprintf(name, len, "%s", base); /* nowhere else: the runs share it, said */
    lens_say("%s: in use by %s, and no other directory could be made beside it; the two runs "
             "write into it",
             base, holder);
}

static void after_init(void)
{
    int size = 0;
    ((lens_rank_fn)lens_library("MPI_Comm_size"))(MPI_COMM_WORLD, &size);
    lens_launch_check_after_init(size);
    if (lens_nmodules == 0 && !collecting)
        return;
    int by_cli = getenv("MPILENS_CLI") != NULL; /* mpilens run holds the claim */
    if (output_dir[0] && by_cli) {
        lens_output_share_check(output_dir);
        return;
    }
    int rank = 0;
    ((lens_rank_fn)lens_library("MPI_Comm_rank"))(MPI_COMM_WORLD, &rank);
    char name[PATH_MAX] = "";
    if (rank == 0 && output_dir[0]) {
        snprintf(name, sizeof name, "%s", output_dir);
    } else if (rank == 0) { /* made here, with -2, -3... if a run of the same second has it */
        char base[PATH_MAX - 16];
        default_output_name(base, sizeof base);
        snprintf(name, sizeof name, "%s", base);
        for (int n = 2; mkdir(name, 0777) != 0 && errno == EEXIST && n < 10000; n++)
            snprintf(name, sizeof name, "%s-%d", base, n);
        output_made = access(name, W_OK) == 0;
    }
    if (rank == 0 && !by_cli)
        claim_output(name, sizeof name);
    ((lens_bcast_fn)lens_library("MPI_Bcast"))(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(output_dir, sizeof output_dir, "%s", name);
    lens_output_share_check(output_dir);
}

static int hook_init(int *argc, char ***argv)
{
    lens_launch_check_before_init();
    int rc = real_init(argc, argv);
    if (rc == MPI_SUCCESS)
        after_init();
    return rc;
}

static int hook_init_thread(int *argc, char ***argv, int required, int *provided)
{
    lens_launch_check_before_init();
    int rc = real_init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        after_init();
    return rc;
}

static int hook_finalize(void)
{
    int rank = 0;
    ((lens_rank_fn)lens_library("MPI_Comm_rank"))(MPI_COMM_WORLD, &rank);
    if ((lens_nmodules > 0 || collecting) && output_dir[0]) /* what ranks wrote elsewhere */
        lens_output_share_finish(output_dir);
    if (rank == 0 && output_requested && !getenv("MPILENS_CLI"))
        fprintf(stderr, "mpilens: results in %s\n", output_dir);
    if (claim_fd >= 0) { /* the modules have written (their MPI_Finalize is above this) */
        lens_claim_release(output_dir, claim_fd);
        claim_fd = -1;
    }
    return real_finalize();
}

const char *mpilens_output_dir(void)
{
    if (!output_dir[0])
        return NULL;
    output_requested = 1;
    if (!output_made && lens_make_dirs(output_dir) == 0)
        output_made = 1;
    return output_dir;
}

void lens_hooks_install(lens_voidfn *bottom)
{
    const char *env = getenv("MPILENS_OUTPUT");
    collecting = getenv("MPILENS_COLLECT") != NULL;
    if (env && *env && (lens_nmodules > 0 || collecting)) {
        if (env[0] == '/' || !getcwd(output_dir, sizeof output_dir))
            snprintf(output_dir, sizeof output_dir, "%s", env);
        else
            snprintf(output_dir + strlen(output_dir), sizeof output_dir - strlen(output_dir), "/%s",
                     env);
        if (lens_make_dirs(output_dir) != 0)
            lens_die("MPILENS_OUTPUT=%s: cannot create or write the output directory (%s); "
                     "choose a writable directory (mpilens run -o DIR)",
                     env, strerror(errno));
        output_made = 1;
    }
    int init = lens_function_index("MPI_Init");
    int init_thread = lens_function_index("MPI_Init_thread");
    int finalize = lens_function_index("MPI_Finalize");
    real_init = (init_fn)bottom[init];
    real_init_thread = (init_thread_fn)bottom[init_thread];
    real_finalize = (finalize_fn)bottom[finalize];
    bottom[init] = (lens_voidfn)hook_init;
    bottom[init_thread] = (lens_voidfn)hook_init_thread;
    bottom[finalize] = (lens_voidfn)hook_finalize;
}
