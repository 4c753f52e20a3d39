/* snapshot.c: a rank's record saved without MPI, however the rank ends (snapshot.h).
 *
 * Everything a save needs is prepared at install time (the paths, the writer); a save
 * itself calls only open, write, fsync-free close, rename and the module's writer, so it
 * may run in a signal handler. The periodic thread and a signal handler write to
 * different temporary names, so one never renames the other's half-written file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run_output.h"
#include "snapshot.h"

#define TRAILER_MAGIC "MPILENS-SNAPSHOT"

struct trailer {
    char magic[16];
    uint64_t length; /* of the data before the trailer */
    char how[64];
};

static lens_snapshot_writer writer;
static char final_path[4200], tmp_signal[4300], tmp_thread[4300];
static atomic_int finished = 1; /* nothing installed, or MPI_Finalize done */
static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGXCPU,
                             SIGSEGV, SIGBUS,  SIGFPE, SIGILL,  SIGABRT};
#define NCAUGHT (sizeof caught / sizeof *caught)
static struct sigaction before[NCAUGHT];
static pthread_t ticker;
static int ticking, verbose;

int lens_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void save_to(const char *tmp, const char *how)
{
    if (!writer || atomic_load(&finished))
        return;
    int saved_errno = errno;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        int ok = writer(fd) == 0;
        off_t length = lseek(fd, 0, SEEK_CUR);
        struct trailer t;
        memset(&t, 0, sizeof t);
        memcpy(t.magic, TRAILER_MAGIC, sizeof t.magic);
        t.length = (uint64_t)length;
        size_t n = strlen(how);
        memcpy(t.how, how, n < sizeof t.how - 1 ? n : sizeof t.how - 1);
        ok = ok && length >= 0 && lens_write_all(fd, &t, sizeof t) == 0;
        close(fd);
        if (ok)
            rename(tmp, final_path);
        else
            unlink(tmp);
    }
    errno = saved_errno;
}

void lens_snapshot_save(const char *how)
{
    save_to(tmp_signal, how);
}

/* "signal N" without stdio */
static void signal_reason(int sig, char *out)
{
    memcpy(out, "signal ", 7);
    char digits[8];
    int n = 0;
    do
        digits[n++] = (char)('0' + sig % 10);
    while ((sig /= 10) && n < 7);
    for (int i = 0; i < n; i++)
        out[7 + i] = digits[n - 1 - i];
    out[7 + n] = '\0';
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    char how[32];
    signal_reason(sig, how);
    save_to(tmp_signal, how);
    /* hand the signal on: to the handler that was there, or its default action */
    for (size_t i = 0; i < NCAUGHT; i++) {
        if (caught[i] != sig)
            continue;
        const struct sigaction *old = &before[i];
        if (old->sa_flags & SA_SIGINFO) {
            if (old->sa_sigaction)
                old->sa_sigaction(sig, info, context);
        } else if (old->sa_handler == SIG_IGN) {
            return;
        } else if (old->sa_handler != SIG_DFL) {
            old->sa_handler(sig);
        } else {
            sigaction(sig, old, NULL);
            raise(sig); /* delivered when this handler returns (a fault repeats) */
        }
        return;
    }
}

static void at_exit(void)
{
    save_to(tmp_signal, "exit without MPI_Finalize");
}

static void *tick(void *arg)
{
    unsigned seconds = (unsigned)(uintptr_t)arg;
    while (!atomic_load(&finished)) {
        struct timespec ts = {seconds, 0};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        save_to(tmp_thread, "last periodic snapshot (its end was not seen)");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (verbose) { /* MPILENS_SNAPSHOT_VERBOSE: what each periodic save costs */
            struct stat st;
            fprintf(stderr, "mpilens: snapshot %s: %lld bytes in %.6f s\n", final_path,
                    stat(final_path, &st) == 0 ? (long long)st.st_size : -1LL,
                    (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        }
    }
    return NULL;
}

void lens_snapshot_install(const char *module, int rank, lens_snapshot_writer w)
{
    const char *dir = lens_run_output_dir();
    char partial[4100];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    if (mkdir(partial, 0777) != 0 && errno != EEXIST)
        return; /* no place to save: the run goes on without snapshots */
    snprintf(final_path, sizeof final_path, "%s/%s.%d", partial, module, rank);
    snprintf(tmp_signal, sizeof tmp_signal, "%s/.%s.%d.tmp", partial, module, rank);
    snprintf(tmp_thread, sizeof tmp_thread, "%s/.%s.%d.tick", partial, module, rank);
    writer = w;
    atomic_store(&finished, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaction(caught[i], &sa, &before[i]);
    atexit(at_exit);
    const char *every = getenv("MPILENS_SNAPSHOT");
    verbose = getenv("MPILENS_SNAPSHOT_VERBOSE") != NULL;
    long seconds = every && *every ? strtol(every, NULL, 10) : 60;
    if (seconds > 0 && pthread_create(&ticker, NULL, tick, (void *)(uintptr_t)seconds) == 0) {
        ticking = 1;
        pthread_detach(ticker);
    }
}

void lens_snapshot_done(void)
{
    if (atomic_exchange(&finished, 1))
        return;
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaction(caught[i], &before[i], NULL);
    unlink(final_path);
    unlink(tmp_signal);
    unlink(tmp_thread);
    char partial[4200];
    snprintf(partial, sizeof partial, "%s", final_path);
    char *slash = strrchr(partial, '/');
    if (slash) {
        *slash = '\0';
        rmdir(partial); /* the last rank to finish removes it */
    }
}

char *lens_snapshot_read(const char *path, size_t *len, char *how, size_t howlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    struct trailer t;
    char *data = NULL;
    if (size >= (long)sizeof t && fseek(f, size - (long)sizeof t, SEEK_SET) == 0 &&
        fread(&t, 1, sizeof t, f) == sizeof t &&
        memcmp(t.magic, TRAILER_MAGIC, sizeof t.magic) == 0 &&
        t.length == (uint64_t)(size - (long)sizeof t) && (data = malloc(t.length + 1)) &&
        fseek(f, 0, SEEK_SET) == 0 && fread(data, 1, t.length, f) == t.length) {
        *len = t.length;
        t.how[sizeof t.how - 1] = '\0';
        snprintf(how, howlen, "%s", t.how);
    } else {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}
