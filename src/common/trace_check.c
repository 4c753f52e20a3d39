/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_check.c: a whole archive read once by OTF2 in a child process, before a reader
 * (export, analyze) reads it in its own. Our checks (trace_anchor.c, the format and file
 * checks) run first, but the library may still fault on a file they did not foresee; in
 * the child such a fault only ends the child, and the parent names the file being read
 * when it happened (the child writes each file's path into a shared page before it opens
 * it). Reading all of a trace without callbacks costs a small part of what a reader does
 * with it (docs/architecture.md has the figures).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_reader.h"

struct check_page {
    uint64_t ranks;
    char stage[4200]; /* the file being read */
    char why[8500];   /* the child's verdict when it found a problem */
};

static struct check_page *page; /* set in the child only */

/* Inside the child: the file about to be read, for the verdict if OTF2 crashes on it. */
static void trace_check_stage(const char *path)
{
    if (page)
        snprintf(page->stage, sizeof page->stage, "%s", path);
}

/* The child: every part of the archive read in turn. Exit 0: all readable; 2: a problem,
 * said in page->why. */
static int check_child(const char *run, const char *verb)
{
    char anchor[4200], defs[4200];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", run);
    snprintf(defs, sizeof defs, "%s/trace/traces.def", run);
    trace_check_stage(anchor);
    uint64_t ranks = 0;
    OTF2_Reader *reader = trace_reader_open(anchor, &ranks);
    if (!reader) {
        trace_open_problem(anchor, page->why, sizeof page->why);
        return 2;
    }
    if (trace_missing_problem(run, ranks, page->why, sizeof page->why) ||
        trace_format_problem(reader, anchor, verb, page->why, sizeof page->why)) {
        OTF2_Reader_Close(reader);
        return 2;
    }
    trace_check_stage(defs);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(reader);
    uint64_t read = 0;
    int bad = !gdr || OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &read) != OTF2_SUCCESS;
    OTF2_Reader_Close(reader);
    if (bad) {
        snprintf(page->why, sizeof page->why,
                 "%s: the global definitions are truncated or corrupt (after record %llu); "
                 "trace the run again",
                 defs, (unsigned long long)read);
        return 2;
    }
    if (trace_events_problem(run, anchor, ranks, page->why, sizeof page->why, trace_check_stage))
        return 2;
    page->ranks = ranks;
    return 0;
}

int trace_check_run(const char *run, uint64_t *ranks, const char *verb, char *why, size_t n)
{
    int status = 0;
    struct check_page *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        snprintf(why, n, "%s/trace: cannot check the trace (mmap: %s)", run, strerror(errno));
        return 1;
    }
    memset(shared, 0, sizeof *shared);
    fflush(NULL);
    /* MPILENS_TRACE_CHECK_IN_PROCESS=1 (scripts/fuzz.sh while fuzzing): no child, so that
     * the fuzzer sees the library's coverage and its faults */
    const char *inside = getenv("MPILENS_TRACE_CHECK_IN_PROCESS");
    int in_process = inside && strcmp(inside, "1") == 0;
    pid_t child = in_process ? 0 : fork();
    if (in_process) {
        page = shared;
        status = W_EXITCODE(check_child(run, verb), 0);
        page = NULL;
    } else if (child == 0) {
        page = shared;
        /* A fault in the library is ours to report: no core file, no allocator chatter. */
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0 && !getenv("MPILENS_TRACE_CHECK_VERBOSE"))
            dup2(null, STDERR_FILENO);
        _exit(check_child(run, verb));
    } else if (child < 0) {
        snprintf(why, n, "%s/trace: cannot check the trace (fork: %s)", run, strerror(errno));
        munmap(shared, sizeof *shared);
        return 1;
    } else
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
    int problem = 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        *ranks = shared->ranks;
        problem = 0;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
        snprintf(why, n, "%s", shared->why);
    else if (WIFSIGNALED(status))
        snprintf(why, n,
                 "%s: corrupt in a way the OTF2 library cannot survive (it died of signal %d "
                 "reading it); trace the run again",
                 shared->stage[0] ? shared->stage : run, WTERMSIG(status));
    else
        snprintf(why, n,
                 "%s: corrupt in a way the OTF2 library cannot survive (its reader ended with "
                 "status %d); trace the run again",
                 shared->stage[0] ? shared->stage : run, WEXITSTATUS(status));
    munmap(shared, sizeof *shared);
    return problem;
}
