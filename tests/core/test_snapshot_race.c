/* test_snapshot_race.c: the file a rank's saves leave is always one whole save, the newest
 * that ended (src/common/snapshot.c), whatever interrupts or overlaps them:
 *  - periodic: an ending save (MPI_Abort's) made while the periodic thread is still writing
 *    an older one is the file left;
 *  - threads: a second ending save in another thread (a rank's second SIGTERM, from its
 *    launcher, goes to another thread while the first is handled) begins while the first
 *    is being written; the rank is killed (SIGKILL) during the second, once the first is in
 *    place: the first is left whole (both used to write one temporary file, the second
 *    truncating the first's before its rename: a file with a hole);
 *  - nested: a signal (SIGURG, `mpilens run`'s request) arrives during a save in the same
 *    thread: its save is left, whole, and the interrupted one does not replace it; a second
 *    SIGURG saves again (the handlers stay);
 *  - retry: a writer that fails once (its records changed between its passes: another
 *    thread) is tried again, and the file is there;
 *  - remade: the directory was removed before the rank's first save (another rank's
 *    normal end found it empty: 512 ranks on 2 cores, whose first periodic tick came
 *    late); the save makes it again and the file is there.
 * No MPI: the snapshot code itself, with real files, each case in a process of its own.
 * Waits are on events (bounded), never on a time a busy machine could exceed.
 */
#include <signal.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpilens_snapshot.h"

#define CHUNKS 32
#define CHUNK 32

enum mode { PERIODIC, THREADS, NESTED, RETRY, REMADE };
static enum mode mode;
static pthread_t main_thread;
static char final_path[512];
static atomic_int calls;         /* the writer's calls so far: call K writes 'a' + K - 1 */
static atomic_int first_writing; /* THREADS: the first save's writer is half way */

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* Up to 20 s for FLAG to be set (or the final file to exist when FLAG is NULL). */
static int wait_for(atomic_int *flag)
{
    for (int i = 0; i < 20000; i++) {
        if (flag ? atomic_load(flag) : access(final_path, F_OK) == 0)
            return 1;
        pause_ms(1);
    }
    return 0;
}

static int writer(int fd)
{
    if (mode == PERIODIC) {
        int periodic = !pthread_equal(pthread_self(), main_thread);
        if (periodic)
            pause_ms(400);
        const char *what = periodic ? "periodic" : "ending";
        return mpilens_write_all(fd, what, strlen(what));
    }
    int call = atomic_fetch_add(&calls, 1) + 1;
    char chunk[CHUNK];
    memset(chunk, 'a' + call - 1, sizeof chunk);
    for (int i = 0; i < CHUNKS; i++) {
        if (mode == THREADS && call == 1 && i == CHUNKS / 8)
            atomic_store(&first_writing, 1);
        if (mode == THREADS && call == 2 && i == CHUNKS / 4 && wait_for(NULL))
            kill(getpid(), SIGKILL); /* the first save is in place; this one is cut short */
        if (mode == NESTED && call == 1 && i == CHUNKS / 2)
            raise(SIGURG);
        if (mode == RETRY && call == 1 && i == CHUNKS / 2)
            return -1;
        if (mpilens_write_all(fd, chunk, sizeof chunk) != 0)
            return -1;
        if (mode == THREADS)
            pause_ms(2);
    }
    return 0;
}

static int failures;

/* The final file holds CHUNKS x CHUNK bytes of LETTER, with the trailer HOW. */
static void check_file(const char *what, char letter, const char *how)
{
    size_t len = 0;
    char got_how[64] = "";
    char *data = mpilens_snapshot_read(final_path, &len, got_how, sizeof got_how);
    int whole = data && len == CHUNKS * CHUNK;
    for (size_t i = 0; whole && i < len; i++)
        whole = data[i] == letter;
    int ok = whole && strcmp(got_how, how) == 0;
    failures += !ok;
    printf("%s %s (want %d x '%c' \"%s\"; got %zu bytes beginning \"%.8s\", \"%s\")\n",
           ok ? "ok  " : "FAIL", what, CHUNKS * CHUNK, letter, how, data ? len : 0,
           data ? data : "", got_how);
    free(data);
}

static void *first_save(void *arg)
{
    (void)arg;
    mpilens_snapshot_save("first");
    return NULL;
}

/* One case in this process (forked: its own handlers, thread and directory DIR). */
static void run_case(const char *dir)
{
    setenv("MPILENS_OUTPUT", dir, 1);
    setenv("MPILENS_SNAPSHOT", mode == PERIODIC ? "1" : "0", 1);
    snprintf(final_path, sizeof final_path, "%s/partial/race.0", dir);
    main_thread = pthread_self();
    mpilens_snapshot_install("race", 0, writer);
    if (mode == PERIODIC) {
        pause_ms(1200); /* the periodic save began at 1 s and writes until 1.4 s */
        mpilens_snapshot_save("MPI_Abort");
        pause_ms(600);
        size_t len = 0;
        char how[64] = "";
        char *data = mpilens_snapshot_read(final_path, &len, how, sizeof how);
        int ok =
            data && len == 6 && memcmp(data, "ending", 6) == 0 && strcmp(how, "MPI_Abort") == 0;
        failures += !ok;
        printf("%s periodic: the ending save is the file left (got \"%.*s\", \"%s\")\n",
               ok ? "ok  " : "FAIL", data ? (int)len : 0, data ? data : "", how);
        free(data);
        mpilens_snapshot_done(); /* removes the file and the directory */
    } else if (mode == THREADS) {
        pthread_t other;
        if (pthread_create(&other, NULL, first_save, NULL) != 0 || !wait_for(&first_writing))
            exit(1);
        mpilens_snapshot_save("second"); /* killed in it, once the first is in place */
        printf("FAIL threads: the second save was not cut short as set up\n");
        exit(1);
    } else if (mode == NESTED) {
        mpilens_snapshot_save("MPI_Abort"); /* SIGURG half way through its writer */
        check_file("nested: the signal's save, not the one it interrupted", 'b',
                   "stopped by a signal to mpilens run");
        raise(SIGURG);
        check_file("nested: a second SIGURG saves again", 'c',
                   "stopped by a signal to mpilens run");
    } else if (mode == RETRY) {
        mpilens_snapshot_save("MPI_Abort");
        check_file("retry: a writer that failed once is tried again", 'b', "MPI_Abort");
    } else {
        char partial[600];
        snprintf(partial, sizeof partial, "%s/partial", dir);
        if (rmdir(partial) != 0) /* as another rank's end does when it finds it empty */
            exit(1);
        mpilens_snapshot_save("MPI_Abort");
        check_file("remade: a save after the directory went makes it again", 'a', "MPI_Abort");
    }
    fflush(stdout);
    _exit(failures ? 1 : 0);
}

int main(void)
{
    const char *names[] = {"periodic", "threads", "nested", "retry", "remade"};
    for (int m = PERIODIC; m <= REMADE; m++) {
        char dir[] = "/tmp/mpilens-snapshot-race-XXXXXX";
        if (!mkdtemp(dir))
            return 1;
        fflush(stdout);
        mode = (enum mode)m;
        pid_t child = fork();
        if (child == 0)
            run_case(dir);
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child) {
            printf("FAIL %s: the case's process did not start or end\n", names[m]);
            failures++;
        } else if (m == THREADS) {
            snprintf(final_path, sizeof final_path, "%s/partial/race.0", dir);
            int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
            failures += !killed;
            printf("%s threads: the rank was killed during the second save\n",
                   killed ? "ok  " : "FAIL");
            check_file("threads: the first save, whole, is the file left", 'a', "first");
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            failures++;
            if (!WIFEXITED(status))
                printf("FAIL %s: the case's process ended by signal %d\n", names[m],
                       WTERMSIG(status));
        }
        char command[300];
        snprintf(command, sizeof command, "rm -rf %s", dir);
        if (system(command) != 0)
            failures++;
    }
    return failures ? 1 : 0;
}
/* SPDX-License-Identifier: BSD-3-Clause */
