/* SPDX-License-Identifier: BSD-3-Clause */
/* analyze.c: `mpilens analyze RUN`: start the parallel replay (mpilens-analyze, an MPI
 * program) with as many ranks as the traced run had, through mpirun or the launcher given.
 * The job's standard error passes through a filter: our own lines ("mpilens: ...") go out
 * at once; the launcher's are held, and dropped when the job failed after saying why
 * itself (mpirun's "a process returned a non-zero exit code" banner adds nothing then).
 * A watchdog stops the job when it runs far longer than the traced run did: the replay
 * waits for the messages the trace promises, so ranks whose recorded communication does
 * not match (a damaged or mixed-up trace) would otherwise wait forever. Once the wait
 * states are in the run's database, the run's page is drawn again with them.
 */
#include <otf2/otf2.h>
#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "page.h"
#include "trace_reader.h"

static const char usage[] =
    "usage: mpilens analyze RUN [--launcher \"mpirun ...\"]\n"
    "\n"
    "Finds the wait states of a traced run (module `trace`) by replaying its communication\n"
    "on as many ranks as it had; every rank reads only its own trace (its threads merged in\n"
    "time). Patterns: Late Sender,\n"
    "Late Receiver, Wait at N x N, Wait at Barrier, Late Broadcast, Early Reduce, Early\n"
    "Scan; one-sided: Wait at Fence, Early Fence, Late Post, Early Transfer, Early Wait, Late\n"
    "Complete. Results go into RUN/mpilens.db; read them with mpilens report --waits RUN,\n"
    "or see them in mpilens export RUN --chrome OUT.json. A trace whose event logs wait for\n"
    "their conversion (RUN/trace/CONVERT-PENDING: a run without mpilens run) is converted\n"
    "first, as `mpilens recover RUN` does.\n"
    "\n"
    "  --launcher CMD   how to start MPI programs; -np N (srun: -n N) and the program\n"
    "                   are appended\n"
    "                   (default: the launcher of the traced run as `mpilens run` saw it,\n"
    "                   else " MPILENS_DEFAULT_LAUNCHER ", with --oversubscribe and, as root,\n"
    "                   --allow-run-as-root for Open MPI)\n"
    "  --timeout S      stop the analysis after S seconds (default: 120 + 20 x the traced\n"
    "                   run's length; 0: never)\n";

static volatile sig_atomic_t watched, timed_out;

/* The watchdog: asks the launcher to stop the job, then makes sure it does. */
static void on_alarm(int signal)
{
    (void)signal;
    if (watched > 0) {
        kill((pid_t)watched, timed_out ? SIGKILL : SIGTERM);
        timed_out = 1;
        alarm(10);
    }
}

static OTF2_CallbackCode on_clock(void *user, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    (void)offset, (void)realtime;
    *(double *)user = resolution ? (double)length / (double)resolution : 0;
    return OTF2_CALLBACK_SUCCESS;
}

/* The traced run's length in seconds from the archive's clock properties (0 if unknown). */
static double traced_seconds(OTF2_Reader *reader)
{
    double seconds = 0;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *gdc = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gdc, on_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, gdc, &seconds);
    uint64_t n = 0;
    OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(gdc);
    return seconds;
}

/* Copies our lines from fd to stderr as they come (each distinct line once) and returns
 * the others, held; *ours counts our lines. */
static volatile sig_atomic_t progress = -1; /* percent of the replay done, -1: none said */

static char *filter_errors(int fd, int *ours)
{
    FILE *in = fdopen(dup(fd), "r");
    char line[8192], *held = NULL, *seen = NULL;
    size_t held_len = 0, seen_len = 0;
    int terminal = isatty(STDERR_FILENO), shown = 0;
    while (in && fgets(line, sizeof line, in)) {
        size_t len = strlen(line);
        int percent = 0;
        if (sscanf(line, "mpilens-progress: %d", &percent) == 1) { /* rank 0, every second */
            progress = percent;
            if (terminal) {
                fprintf(stderr, "\rmpilens: analyze: %d %% replayed", percent);
                shown = 1;
            }
            continue;
        }
        if (shown) { /* the progress line ends before anything else is said */
            fputc('\n', stderr);
            shown = 0;
        }
        int mine = strncmp(line, "mpilens", 7) == 0;
        if (mine && seen && strstr(seen, line))
            continue;
        char **buf = mine ? &seen : &held;
        size_t *used = mine ? &seen_len : &held_len;
        *buf = realloc(*buf, *used + len + 1);
        memcpy(*buf + *used, line, len + 1);
        *used += len;
        if (mine && strncmp(line, "mpilens: analysis of ", 21) == 0) {
            fputs(line, stdout); /* the summary: where the results went */
            fflush(stdout);
        } else if (mine) {
            fputs(line, stderr);
            (*ours)++;
        }
    }
    if (shown)
        fputc('\n', stderr);
    if (in)
        fclose(in);
    free(seen);
    return held;
}

/* The launcher the traced run used (recorded by `mpilens run` in the trace), else the one
 * of the MPI mpilens was built against, with what it needs to start more ranks than cores
 * and, as root, at all (Open MPI). */
static const char *default_launcher(OTF2_Reader *reader, char *out, size_t len)
{
    char *value = NULL;
    if (OTF2_Reader_GetProperty(reader, MPILENS_TRACE_LAUNCHER_PROPERTY, &value) == OTF2_SUCCESS &&
        value && *value) {
        snprintf(out, len, "%s", value);
        free(value);
        return out;
    }
    free(value);
    snprintf(out, len, "%s%s%s", MPILENS_DEFAULT_LAUNCHER,
             MPILENS_LAUNCHER_OPEN_MPI ? " --oversubscribe" : "",
             MPILENS_LAUNCHER_OPEN_MPI && geteuid() == 0 ? " --allow-run-as-root" : "");
    return out;
}

int cli_analyze(int argc, char **argv)
{
    if (cli_help(argc, argv, usage))
        return 0;
    const char *run = NULL, *launcher = NULL;
    double timeout = -1;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--launcher") == 0 && i + 1 < argc)
            launcher = argv[++i];
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            timeout = strtod(argv[++i], &end);
            if (*end || timeout < 0 || timeout > 1e7) {
                fprintf(stderr,
                        "mpilens: analyze: --timeout '%s': give a number of seconds (0: "
                        "never)\n",
                        argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "mpilens: analyze: unknown or incomplete option '%s'%s; see "
                    "`mpilens analyze --help`\n",
                    argv[i], cli_option_hint(argv[i], usage));
            return 2;
        } else
            run = argv[i];
    }
    if (!run) {
        fprintf(stderr, "mpilens: analyze: no run given; write mpilens analyze RUN_DIR\n");
        return 2;
    }
    if (!cli_is_directory(run)) {
        fprintf(stderr,
                "mpilens: analyze: %s: no such directory; give the directory of a traced run "
                "(mpilens run -m trace -o DIR ...)\n",
                run);
        return 2;
    }
    if (cli_convert_pending(run, "analyze") < 0)
        return 2;
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", run);
    uint64_t ranks = 0;
    char why[8500], ending[4096];
    if (cli_incomplete_run(run, ending, sizeof ending)) {
        fprintf(stderr,
                "mpilens: analyze: %s: the run did not end normally (%s); %s, but the wait-state "
                "analysis needs every rank up to MPI_Finalize (a message whose partner stopped "
                "would be charged as a wait); trace a run that reaches MPI_Finalize\n",
                run, ending,
                access(anchor, R_OK) == 0
                    ? "its trace ends where each rank stopped (mpilens export draws it)"
                    : "its ranks saved no trace");
        return 2;
    }
    if (access(anchor, R_OK) == 0 && trace_check_run(run, &ranks, "analyze", why, sizeof why)) {
        fprintf(stderr, "mpilens: analyze: %s\n", why);
        return 2;
    }
    OTF2_Reader *reader = trace_reader_open(anchor, &ranks);
    if (!reader || ranks == 0) {
        if (reader)
            OTF2_Reader_Close(reader);
        fprintf(stderr,
                "mpilens: analyze: %s: no readable trace; run with the trace module "
                "(mpilens run -m trace ...)\n",
                anchor);
        return 2;
    }
    uint64_t locations = ranks; /* a location per rank and per further thread */
    ranks = trace_rank_count(reader, locations);
    int problem = trace_missing_problem(run, locations, why, sizeof why) ||
                  trace_format_problem(reader, anchor, "analyze", why, sizeof why);
    char recorded[4096];
    if (!launcher)
        launcher = default_launcher(reader, recorded, sizeof recorded);
    if (timeout < 0)
        timeout = problem ? 0 : 120 + 20 * traced_seconds(reader);
    OTF2_Reader_Close(reader);
    if (problem) {
        fprintf(stderr, "mpilens: analyze: %s\n", why);
        return 2;
    }
    char program[4096], np[32];
    snprintf(program, sizeof program, "%s/../bin/mpilens-analyze", cli_libdir());
    snprintf(np, sizeof np, "%llu", (unsigned long long)ranks);
    char *copy = strdup(launcher), *args[128];
    int n = cli_line_split(copy, args, 122); /* the words as the user gave them */
    if (n == 0) {
        fprintf(stderr, "mpilens: analyze: --launcher '%s': no command; give --launcher\n",
                launcher);
        free(copy);
        return 2;
    }
    /* the rank count as the launcher spells it: srun -n (it reads -np as -n p) */
    const char *base = strrchr(args[0], '/') ? strrchr(args[0], '/') + 1 : args[0];
    args[n++] = strcmp(base, "srun") == 0 ? "-n" : "-np";
    args[n++] = np;
    args[n++] = program;
    args[n++] = (char *)run;
    args[n] = NULL;
    char line[8192] = ""; /* what replays the run (all but the run), said when it worked */
    for (int i = 0; i < n - 1; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", i ? " " : "", args[i]);
    int errors[2];
    if (pipe(errors) != 0) {
        perror("mpilens: analyze: pipe");
        return 2;
    }
    pid_t child = fork();
    if (child == 0) {
        close(errors[0]);
        dup2(errors[1], STDERR_FILENO);
        close(errors[1]);
        execvp(args[0], args);
        fprintf(stderr, "mpilens: analyze: cannot start '%s'; give --launcher\n", args[0]);
        _exit(127);
    }
    close(errors[1]);
    if (timeout > 0) {
        watched = child;
        struct sigaction sa = {0};
        sa.sa_handler = on_alarm;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        alarm((unsigned)(timeout + 0.999));
    }
    int ours = 0, status = 0;
    char *held = filter_errors(errors[0], &ours);
    close(errors[0]);
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    alarm(0);
    watched = 0;
    free(copy);
    if (timed_out) {
        free(held);
        if (progress >= 0) /* it was advancing: slow, not stuck */
            fprintf(stderr,
                    "mpilens: analyze: %s: the replay was still advancing (%d %% done) when "
                    "--timeout ended it after %.0f s; give a larger --timeout (0: never)\n",
                    run, (int)progress, timeout);
        else
            fprintf(stderr,
                    "mpilens: analyze: %s: the replay did not finish in %.0f s, so the ranks' "
                    "recorded communication does not match (a damaged or mixed-up trace?); give "
                    "--timeout SECONDS if the analysis needs longer\n",
                    run, timeout);
        return 2;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    if (code == 0) {
        fprintf(stderr, "mpilens: analyze: replayed the trace of %s ranks with: %s\n", np, line);
        char page[4200]; /* the run's page, drawn again with the wait states */
        int paged = page_write_run(run, page, sizeof page);
        if (paged == 0)
            fprintf(stderr, "mpilens: analyze: the run's page, now with the wait states: %s\n",
                    page);
        else if (paged < 0)
            fprintf(stderr, "mpilens: analyze: the run's page %s could not be written again: %s\n",
                    page, strerror(errno));
    }
    if (held && *held && !(code != 0 && ours))
        fputs(held, stderr);
    free(held);
    return code;
}
