/* snapshot.h: a rank's record saved without MPI, however the rank ends (docs/modules.md,
 * "A run never loses data").
 *
 * A module that keeps data until MPI_Finalize installs a writer at MPI_Init. Its writer puts
 * the rank's data into a file descriptor using only async-signal-safe calls (write, no
 * malloc, stdio or locks). The file DIR/partial/MODULE.RANK is written under a temporary
 * name and renamed, with a trailer line that says how the rank ended:
 *  - on SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGXCPU (a batch system's warning), and on a fatal
 *    signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): saved, then the signal is handed to
 *    the handler that was there before (the MPI library's backtrace and abort still run);
 *  - on SIGURG (ignored by default): `mpilens run` asks every rank to save before it stops
 *    the job, since a launcher kills the other ranks as soon as one has died;
 *  - in MPI_Abort (the module calls lens_snapshot_save) and at exit without MPI_Finalize;
 *  - every MPILENS_SNAPSHOT seconds (mpilens run --snapshot), from a thread, so that even
 *    SIGKILL leaves the last period's data.
 * At a normal MPI_Finalize the module calls lens_snapshot_done, which removes the file: the
 * merged database is the result (or lens_snapshot_keep, which saves a last time and keeps
 * it, for a module that leaves its merge to the CLI). After the job, if files are left,
 * `mpilens run` (or `mpilens recover DIR`) calls each module's mpilens_module_recover,
 * which merges the files.
 */
#ifndef LENS_SNAPSHOT_H
#define LENS_SNAPSHOT_H

#include "lens_hidden.h"

#include <stddef.h>
#include <stdint.h>

/* Writes the rank's data into FD (async-signal-safe); 0, or -1 if a write failed. */
typedef int (*lens_snapshot_writer)(int fd);

/* At MPI_Init: files DIR/partial/MODULE.RANK, WRITER, handlers and the periodic thread. */
LENS_HIDDEN void lens_snapshot_install(const char *module, int rank, lens_snapshot_writer writer);
/* Saves now; HOW is the trailer's reason ("MPI_Abort", "snapshot"). Async-signal-safe. */
LENS_HIDDEN void lens_snapshot_save(const char *how);
/* At a normal MPI_Finalize: no more snapshots, and this rank's file removed. */
LENS_HIDDEN void lens_snapshot_done(void);
/* At a normal MPI_Finalize that leaves work for the CLI (the trace's deferred conversion):
 * saved one last time with HOW (LENS_SNAPSHOT_FINALIZED), no more snapshots, and the file
 * kept for mpilens_module_recover. */
#define LENS_SNAPSHOT_FINALIZED "MPI_Finalize"
LENS_HIDDEN void lens_snapshot_keep(const char *how);

/* At a normal MPI_Finalize, after the module wrote its results: the snapshot goes when
 * WRITTEN, else it is kept with HOW for `mpilens recover` (lens_snapshot_keep). */
LENS_HIDDEN void lens_snapshot_end(int written, const char *how);

/* Writing helpers for writers: all of BUF, or -1. */
LENS_HIDDEN int lens_write_all(int fd, const void *buf, size_t len);

/* Items of one section written through a fixed buffer (no malloc), or only counted (fd -1):
 * writers make a counting pass for their headers, then a writing pass. */
struct lens_emitter {
    int fd; /* -1: count only */
    uint64_t count;
    size_t used;
    int failed;
    char buf[4096];
};
LENS_HIDDEN void lens_emit(struct lens_emitter *e, const void *item, size_t size);
/* Writes what is buffered; 0, or -1 if any write of E failed. */
LENS_HIDDEN int lens_emit_flush(struct lens_emitter *e);

/* Reading back (recovery, not in a signal handler): the file's bytes (malloc'ed, *LEN) up
 * to its trailer, and the trailer's reason in HOW; NULL if the file is not a snapshot. */
LENS_HIDDEN char *lens_snapshot_read(const char *path, size_t *len, char *how, size_t howlen);

/* ---- recovery helpers (for a module's mpilens_module_recover) ---- */

struct lens_snapshot_ending {
    int rank;
    char how[64];
};
struct lens_snapshot_endings {
    struct lens_snapshot_ending *at;
    int count, world_size;
};

/* Reads every DIR/partial/MODULE.RANK file and hands its data to ABSORB, which returns 0
 * (or -1: damaged, skipped) and sets *WORLD to the job's size. Returns how many files were
 * absorbed, with how each rank ended in ENDINGS. */
LENS_HIDDEN int lens_snapshot_gather(const char *dir, const char *module,
                                     int (*absorb)(void *ctx, const char *data, size_t len,
                                                   int32_t *world),
                                     void *ctx, struct lens_snapshot_endings *endings);
/* Records in DIR/mpilens.db that the run is incomplete (metadata `Incomplete`: "ranks 0, 2:
 * signal 15; rank 1: MPI_Abort; nothing saved by rank 3") and its size (`Processes`). */
LENS_HIDDEN int lens_snapshot_mark_incomplete(const char *dir,
                                              const struct lens_snapshot_endings *e, char *err,
                                              size_t errlen);
/* 1 if every rank of the job saved its file at MPI_Finalize (lens_snapshot_keep): the run
 * is complete, its module only left its merge to the CLI. */
LENS_HIDDEN int lens_snapshot_all_finalized(const struct lens_snapshot_endings *e);
LENS_HIDDEN void lens_snapshot_endings_free(struct lens_snapshot_endings *e);

#endif
