/* SPDX-License-Identifier: BSD-3-Clause */
/* snapshot.c: a rank's record saved without MPI, however the rank ends
 * (include/mpilens_snapshot.h).
 *
 * Everything a save needs is prepared at install time (the paths, the writer); a save
 * itself calls only open, write, fsync-free close, rename and the module's writer, so it
 * may run in a signal handler. Every save writes a temporary file of its own (the periodic
 * thread's, and one numbered for each save that ends the rank), so none renames or
 * truncates another's half-written file; ending saves take turns between threads, and the
 * file left is the newest ending save's, never an older periodic one's (save_ending).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run_output.h"
#include "rundb.h"
#include "mpilens_snapshot.h"

#define TRAILER_MAGIC "MPILENS-SNAPSHOT"

struct trailer {
    char magic[16];
    uint64_t length; /* of the data before the trailer */
    char how[64];
};

static mpilens_snapshot_writer writer;
/* the rank's file; the temporary names: numbered ending saves' prefix, the thread's */
static char final_path[4200], tmp_ending[4300], tmp_thread[4300];
static atomic_int finished = 1; /* nothing installed, or MPI_Finalize done */
/* SIGURG (ignored by default) is `mpilens run` asking for a save before it stops the job */
static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGXCPU, SIGSEGV,
                             SIGBUS,  SIGFPE, SIGILL, SIGABRT, SIGURG};
#define NCAUGHT (sizeof caught / sizeof *caught)
static struct sigaction before[NCAUGHT];
static int verbose;

int mpilens_write_all(int fd, const void *buf, size_t len)
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

void mpilens_emit(struct mpilens_emitter *e, const void *item, size_t size)
{
    e->count++;
    if (e->fd < 0 || e->failed)
        return;
    if (e->used + size > sizeof e->buf) {
        e->failed |= mpilens_write_all(e->fd, e->buf, e->used) != 0;
        e->used = 0;
    }
    memcpy(e->buf + e->used, item, size);
    e->used += size;
}

int mpilens_emit_flush(struct mpilens_emitter *e)
{
    if (e->fd >= 0 && !e->failed && e->used)
        e->failed |= mpilens_write_all(e->fd, e->buf, e->used) != 0;
    e->used = 0;
    return e->failed ? -1 : 0;
}

/* The error of the last save that could not be written (0: it was), said by the periodic
 * thread and mpilens_snapshot_keep (a signal handler cannot print). */
static atomic_int failed_errno;

/* Says once per job (run_problem.c) that FAILED_ERRNO kept a save from being written:
 * "FILE: WHAT: error; CONSEQUENCE". */
static void say_failed_save(const char *what, const char *consequence)
{
    int e = atomic_exchange(&failed_errno, 0);
    if (e)
        lens_run_problem("snapshot", "%s: %s: %s; %s", final_path, what, strerror(e), consequence);
}

static atomic_int saving; /* saves under way (mpilens_snapshot_done waits for the thread's) */
/* A save that ends the rank (a signal, MPI_Abort, exit, MPI_Finalize's keep) has begun; the
 * periodic thread is writing one. The periodic one, begun earlier and slower, must not
 * rename its older record over the last: it does not rename once an ending save began, and
 * an ending save waits (bounded: it may run in a handler that interrupted the thread) for
 * the periodic one to be done before it renames. */
static atomic_int ending_began, periodic_busy;

/* Before an ending save renames: the periodic save under way, if any, is done (up to 2 s). */
static void wait_periodic(void)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000 && atomic_load(&periodic_busy); i++)
        nanosleep(&ms, NULL);
}

/* The writer's data and the trailer with HOW into a new file TMP; 1 written, 0 failed
 * (TMP may be left: the caller unlinks it), -1 not opened (errno kept in failed_errno). */
static int write_file(const char *tmp, const char *how)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        atomic_store(&failed_errno, errno);
        return -1;
    }
    int ok = writer(fd) == 0;
    off_t length = lseek(fd, 0, SEEK_CUR);
    struct trailer t;
    memset(&t, 0, sizeof t);
    memcpy(t.magic, TRAILER_MAGIC, sizeof t.magic);
    t.length = (uint64_t)length;
    size_t n = strlen(how);
    memcpy(t.how, how, n < sizeof t.how - 1 ? n : sizeof t.how - 1);
    ok = ok && length >= 0 && mpilens_write_all(fd, &t, sizeof t) == 0;
    if (!ok)
        atomic_store(&failed_errno, errno ? errno : ENOSPC);
    if (close(fd) != 0 && ok) {
        atomic_store(&failed_errno, errno);
        ok = 0;
    }
    return ok;
}

/* write_file, tried again when the writer failed: a save made beside the application's
 * threads (the periodic one, or a signal another thread took) drops its data when the
 * records changed between its counting and writing passes, and the next try usually
 * finds them still. */
#define SAVE_TRIES 3
/* The directory of PATH made again: the first rank to finish with an empty DIR/partial
 * removes it (finish), and a rank that had not saved yet (512 ranks on 2 cores: its first
 * periodic tick comes late) then found none. Async-signal-safe. */
static void make_dir_of(const char *path)
{
    char dir[4200];
    size_t n = strlen(path);
    if (n >= sizeof dir)
        return;
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        mkdir(dir, 0777);
    }
}

static int write_file_tries(const char *tmp, const char *how)
{
    int ok = 0;
    for (int i = 0; i < SAVE_TRIES && ok == 0; i++) {
        ok = write_file(tmp, how);
        if (ok < 0 && atomic_load(&failed_errno) == ENOENT && i + 1 < SAVE_TRIES) {
            make_dir_of(tmp); /* another rank's finish removed it: made again, tried again */
            ok = 0;
        }
    }
    if (ok > 0)
        atomic_store(&failed_errno, 0); /* a failed try mended: nothing to say */
    return ok;
}

/* Ending saves: the thread writing one (its kernel id; 0: none), and the number of the
 * newest one renamed into place. Two threads never write one at once (a rank's second
 * SIGTERM, from its launcher, goes to another thread while the first is being handled);
 * each save has a temporary file of its own (the same name for two saves let one truncate
 * the other's file before its rename, and a rank killed then left a file with a hole), and
 * one renames only if no newer one has: a signal that interrupts a save in its own thread
 * saves at once, and the interrupted one, resumed, does not replace it. */
static atomic_int ending_owner;
static atomic_uint ending_number, ending_renamed;

/* N in decimal and a '\0' at OUT (at most 11 bytes), without stdio: async-signal-safe. */
static void put_decimal(char *out, unsigned n)
{
    char digits[10];
    int d = 0;
    do
        digits[d++] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    for (int i = 0; i < d; i++)
        out[i] = digits[d - 1 - i];
    out[d] = '\0';
}

/* Takes the ending save's turn for this thread: 1 taken (given back by the caller), 0 the
 * thread holds it already (a signal during its own save) or the other thread's save did
 * not end within 2 s (it was stopped: this one goes ahead beside it). */
static int take_ending_turn(int me)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000; i++) {
        int holder = 0;
        if (atomic_compare_exchange_strong(&ending_owner, &holder, me))
            return 1;
        if (holder == me)
            return 0;
        nanosleep(&ms, NULL);
    }
    return 0;
}

static void save_ending(const char *how)
{
    int me = (int)syscall(SYS_gettid);
    int turn = take_ending_turn(me);
    unsigned number = atomic_fetch_add(&ending_number, 1) + 1;
    char tmp[sizeof tmp_ending + 11];
    size_t prefix = strlen(tmp_ending);
    memcpy(tmp, tmp_ending, prefix);
    put_decimal(tmp + prefix, number);
    atomic_store(&ending_began, 1);
    int ok = write_file_tries(tmp, how);
    if (ok >= 0) {
        wait_periodic();
        unsigned newest = atomic_load(&ending_renamed);
        while (ok && newest < number &&
               !atomic_compare_exchange_weak(&ending_renamed, &newest, number))
            ;
        if (ok && newest < number)
            rename(tmp, final_path);
        else
            unlink(tmp);
    }
    if (turn)
        atomic_store(&ending_owner, 0);
}

static void save_periodic(void)
{
    if (atomic_load(&ending_began))
        return;
    atomic_store(&periodic_busy, 1);
    int ok = write_file_tries(tmp_thread, MPILENS_SNAPSHOT_PERIODIC);
    if (ok >= 0) {
        if (ok && !atomic_load(&ending_began))
            rename(tmp_thread, final_path);
        else
            unlink(tmp_thread);
    }
    atomic_store(&periodic_busy, 0);
}

/* A save (PERIODIC: the thread's, else one that ends the rank) with errno kept. */
static void save(int periodic, const char *how)
{
    atomic_fetch_add(&saving, 1);
    if (writer && !atomic_load(&finished)) {
        int saved_errno = errno;
        if (periodic)
            save_periodic();
        else
            save_ending(how);
        errno = saved_errno;
    }
    atomic_fetch_sub(&saving, 1);
}

void mpilens_snapshot_save(const char *how)
{
    save(0, how);
}

/* Makes every directory of PATH up to its last '/' (its file's directory). */
static void make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
}

int mpilens_snapshot_intermediate(int level, char *where, size_t len)
{
    static int taken;
    if (!writer || atomic_load(&finished))
        return -1;
    const char *slash = strrchr(final_path, '/'); /* DIR/partial/MODULE.RANK */
    int dir_len = (int)(slash ? slash - final_path : 0) - (int)strlen("/partial");
    if (dir_len < 0)
        return -1;
    char path[4400], tmp[4420], how[64];
    int k = ++taken;
    snprintf(where, len, "%.*s/pcontrol/%d", dir_len, final_path, k);
    snprintf(path, sizeof path, "%s/partial%s", where, slash);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    snprintf(how, sizeof how, "%s(%d)", MPILENS_SNAPSHOT_PCONTROL, level);
    make_parents(path);
    atomic_fetch_add(&saving, 1);
    int ok = write_file(tmp, how) > 0 && rename(tmp, path) == 0;
    atomic_fetch_sub(&saving, 1);
    if (!ok)
        unlink(tmp);
    return ok ? k : -1;
}

/* "signal N" without stdio */
static void signal_reason(int sig, char *out)
{
    memcpy(out, "signal ", 7);
    put_decimal(out + 7, (unsigned)sig);
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    char how[32];
    signal_reason(sig, how);
    save(0, sig == SIGURG ? "stopped by a signal to mpilens run" : how);
    /* hand the signal on: to the handler that was there, or its default action */
    for (size_t i = 0; i < NCAUGHT; i++) {
        if (caught[i] != sig)
            continue;
        const struct sigaction *old = &before[i];
        if (old->sa_flags & SA_SIGINFO) {
            if (old->sa_sigaction)
                old->sa_sigaction(sig, info, context);
        } else if (old->sa_handler == SIG_IGN || (old->sa_handler == SIG_DFL && sig == SIGURG)) {
            return; /* SIGURG's default is to ignore it: the handlers stay for the next one */
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
    save(0, "exit without MPI_Finalize");
}

static void *tick(void *arg)
{
    unsigned seconds = (unsigned)(uintptr_t)arg;
    /* the signals that end a rank from outside go to the application's threads: an ending
     * save never interrupts this thread's own (wait_periodic would wait for it in vain) */
    sigset_t outside;
    sigemptyset(&outside);
    const int from_outside[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGXCPU, SIGURG};
    for (size_t i = 0; i < sizeof from_outside / sizeof *from_outside; i++)
        sigaddset(&outside, from_outside[i]);
    pthread_sigmask(SIG_BLOCK, &outside, NULL);
    while (!atomic_load(&finished)) {
        struct timespec ts = {seconds, 0};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        save(1, MPILENS_SNAPSHOT_PERIODIC);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        say_failed_save("cannot save the periodic snapshot",
                        "if the job dies now, what was recorded since the last save is lost");
        if (verbose) { /* MPILENS_SNAPSHOT_VERBOSE: what each periodic save costs */
            struct stat st;
            fprintf(stderr, "mpilens: snapshot %s: %lld bytes in %.6f s\n", final_path,
                    stat(final_path, &st) == 0 ? (long long)st.st_size : -1LL,
                    (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        }
    }
    return NULL;
}

void mpilens_snapshot_install(const char *module, int rank, mpilens_snapshot_writer w)
{
    const char *dir = lens_run_output_dir();
    char partial[4100];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    if (mkdir(partial, 0777) != 0 && errno != EEXIST)
        return; /* no place to save: the run goes on without snapshots */
    snprintf(final_path, sizeof final_path, "%s/%s.%d", partial, module, rank);
    snprintf(tmp_ending, sizeof tmp_ending, "%s/.%s.%d.tmp", partial, module, rank);
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
    pthread_t ticker;
    if (seconds > 0 && pthread_create(&ticker, NULL, tick, (void *)(uintptr_t)seconds) == 0)
        pthread_detach(ticker);
}

/* The directory of this rank's file (DIR/partial) into OUT; 0 if the file has none. */
static int partial_dir(char *out, size_t len)
{
    snprintf(out, len, "%s", final_path);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    return slash != NULL;
}

/* No more snapshots; the rank's file removed, or kept (KEEP) for the CLI. */
static void finish(int keep)
{
    if (atomic_exchange(&finished, 1))
        return;
    for (int i = 0; i < 2000 && atomic_load(&saving) > 0; i++) { /* the thread's, at most 2 s */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaction(caught[i], &before[i], NULL);
    unlink(tmp_thread); /* ending saves leave no file of their own: renamed or removed */
    if (keep)
        return;
    unlink(final_path);
    char partial[4200];
    if (partial_dir(partial, sizeof partial))
        rmdir(partial); /* the last rank to finish removes it */
}

void mpilens_snapshot_done(void)
{
    finish(0);
}

void mpilens_snapshot_keep(const char *how)
{
    /* Another module's mpilens_snapshot_done, in this rank or another, removes the directory
     * when it finds it empty: made again, and saved again if it went in between. */
    char partial[4200];
    int has_dir = partial_dir(partial, sizeof partial), tries = 0;
    do {
        if (has_dir)
            mkdir(partial, 0777);
        save(0, how);
    } while (access(final_path, F_OK) != 0 && ++tries < 10);
    say_failed_save("cannot save this rank's record for the merge after the job", "it is lost");
    finish(1);
}

void mpilens_snapshot_end(int written, const char *how)
{
    if (written)
        mpilens_snapshot_done();
    else
        mpilens_snapshot_keep(how);
}

char *mpilens_snapshot_read(const char *path, size_t *len, char *how, size_t howlen)
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

/* ---- recovery helpers ---- */

int mpilens_snapshot_gather(const char *dir, const char *module,
                            int (*absorb)(void *ctx, const char *data, size_t len, int32_t *world),
                            void *ctx, struct mpilens_snapshot_endings *endings)
{
    memset(endings, 0, sizeof *endings);
    char partial[4200];
    snprintf(partial, sizeof partial, "%s/partial", dir);
    DIR *d = opendir(partial);
    if (!d)
        return 0;
    size_t len = strlen(module);
    struct dirent *entry;
    while ((entry = readdir(d))) {
        if (strncmp(entry->d_name, module, len) != 0 || entry->d_name[len] != '.')
            continue;
        char path[4500], how[64];
        snprintf(path, sizeof path, "%s/%s", partial, entry->d_name);
        size_t size = 0;
        char *data = mpilens_snapshot_read(path, &size, how, sizeof how);
        int32_t world = 0;
        char *end;
        long rank = strtol(entry->d_name + len + 1, &end, 10);
        int ok = *end == '\0' && rank >= 0 && data && absorb(ctx, data, size, &world) == 0;
        free(data);
        if (!ok)
            continue;
        struct mpilens_snapshot_ending *grown =
            realloc(endings->at, (endings->count + 1) * sizeof *endings->at);
        if (!grown)
            break;
        endings->at = grown;
        endings->at[endings->count].rank = (int)rank;
        snprintf(endings->at[endings->count].how, sizeof endings->at->how, "%s", how);
        endings->count++;
        endings->world_size = world > endings->world_size ? world : endings->world_size;
    }
    closedir(d);
    return endings->count;
}

static int by_rank(const void *a, const void *b)
{
    return ((const struct mpilens_snapshot_ending *)a)->rank -
           ((const struct mpilens_snapshot_ending *)b)->rank;
}

/* "rank 1: signal 11; ranks 0, 2, 3: signal 15; nothing saved by rank 4" into OUT. */
static void describe(struct mpilens_snapshot_ending *e, int n, int size, char *out, size_t len)
{
    qsort(e, n, sizeof *e, by_rank);
    out[0] = '\0';
    char *done = calloc(n + 1, 1), *seen = calloc(size + 1, 1);
    for (int i = 0; done && seen && i < n; i++) {
        if (e[i].rank >= 0 && e[i].rank < size)
            seen[e[i].rank] = 1;
        if (done[i])
            continue;
        char list[2048] = "";
        int count = 0;
        for (int j = i; j < n; j++) {
            if (done[j] || strcmp(e[j].how, e[i].how) != 0)
                continue;
            done[j] = 1;
            size_t at = strlen(list);
            snprintf(list + at, sizeof list - at, "%s%d", count++ ? ", " : "", e[j].rank);
        }
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s %s: %s", at ? "; " : "", count > 1 ? "ranks" : "rank",
                 list, e[i].how);
    }
    int missing = 0;
    for (int r = 0; seen && r < size; r++) {
        if (seen[r])
            continue;
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%d", missing++ ? ", " : "; nothing saved by rank ", r);
    }
    free(done);
    free(seen);
}

int mpilens_snapshot_all_finalized(const struct mpilens_snapshot_endings *e)
{
    int finalized = 0;
    for (int i = 0; i < e->count; i++)
        finalized += strcmp(e->at[i].how, MPILENS_SNAPSHOT_FINALIZED) == 0;
    return e->count > 0 && finalized == e->count && e->count == e->world_size;
}

int mpilens_snapshot_mark_incomplete(const char *dir, const struct mpilens_snapshot_endings *e,
                                     char *err, size_t errlen)
{
    char text[8192], path[4300];
    struct mpilens_snapshot_ending *copy = malloc((e->count + 1) * sizeof *copy);
    if (!copy) {
        snprintf(err, errlen, "%s: out of memory", dir);
        return -1;
    }
    memcpy(copy, e->at, e->count * sizeof *copy);
    describe(copy, e->count, e->world_size, text, sizeof text);
    free(copy);
    snprintf(path, sizeof path, "%s/%s", dir, RUNDB_FILE);
    return rundb_mark_ended(path, text, e->world_size, err, errlen);
}

void mpilens_snapshot_endings_free(struct mpilens_snapshot_endings *e)
{
    free(e->at);
    memset(e, 0, sizeof *e);
}
