/* SPDX-License-Identifier: BSD-3-Clause */
/* mpilens_snapshot.h: a module's record saved without MPI, however its rank ends; the
 * installed API for module authors (docs/modules.md, "Keeping your data when the run does
 * not end well"). Link the static library libmpilens_module.a (CMake: mpilens::module;
 * pkg-config: mpilens-module) into the module: each module gets its own copy and state,
 * hidden from the application and from the other modules.
 *
 * A module that keeps data until MPI_Finalize installs a writer at MPI_Init. Its writer puts
 * the rank's data into a file descriptor using only async-signal-safe calls (write, no
 * malloc, stdio or locks). The file DIR/partial/MODULE.RANK is written under a temporary
 * name that starts with '.' and renamed (a file in DIR/partial/ whose name starts with '.'
 * is a save cut short, never a record: `mpilens recover` removes it, and the transfer of a
 * node's copy of DIR leaves it out), with a trailer line that says how the rank ended:
 *  - on SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGXCPU (a batch system's warning), and on a fatal
 *    signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): saved, then the signal is handed to
 *    the handler that was there before (the MPI library's backtrace and abort still run);
 *  - on SIGURG (ignored by default): `mpilens run` asks every rank to save before it stops
 *    the job, since a launcher kills the other ranks as soon as one has died;
 *  - in MPI_Abort (the module calls mpilens_snapshot_save) and at exit without MPI_Finalize;
 *  - every MPILENS_SNAPSHOT seconds (mpilens run --snapshot), from a thread, so that even
 *    SIGKILL leaves the last period's data.
 * At a normal MPI_Finalize the module calls mpilens_snapshot_done, which removes the file:
 * its merged results are the result (or mpilens_snapshot_keep, which saves a last time and
 * keeps it, for a module that leaves its merge to the CLI). After the job, if files are
 * left, `mpilens run` (or `mpilens recover DIR`) calls each module's mpilens_module_recover,
 * which merges the files (mpilens_snapshot_gather, mpilens_snapshot_mark_incomplete).
 */
#ifndef MPILENS_SNAPSHOT_H
#define MPILENS_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

/* Every module links its own copy: never exported from the module's .so. */
#define MPILENS_SNAPSHOT_API __attribute__((visibility("hidden")))

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the rank's data into FD (async-signal-safe); 0, or -1 if a write failed. */
typedef int (*mpilens_snapshot_writer)(int fd);

/* At MPI_Init: files DIR/partial/MODULE.RANK, WRITER, handlers and the periodic thread. */
MPILENS_SNAPSHOT_API void mpilens_snapshot_install(const char *module, int rank,
                                                   mpilens_snapshot_writer writer);
/* Saves now; HOW is the trailer's reason ("MPI_Abort", "snapshot"). Async-signal-safe. */
MPILENS_SNAPSHOT_API void mpilens_snapshot_save(const char *how);
/* An intermediate result the application asked for (MPI_Pcontrol(3) or (4), as in mpiP):
 * the rank's data now, into DIR/pcontrol/K/partial/MODULE.RANK, K counting this module's
 * calls (1, 2, ...; every rank calls it alike), with the trailer "MPI_Pcontrol(LEVEL)";
 * `mpilens run` (or `mpilens recover DIR`) merges each DIR/pcontrol/K into its own
 * mpilens.db. Not for signal handlers. Returns K with the directory in WHERE, or -1 (no
 * snapshot installed, or the write failed: errno). */
#define MPILENS_SNAPSHOT_PCONTROL "MPI_Pcontrol"
MPILENS_SNAPSHOT_API int mpilens_snapshot_intermediate(int level, char *where, size_t len);
/* At a normal MPI_Finalize: no more snapshots, and this rank's file removed. */
MPILENS_SNAPSHOT_API void mpilens_snapshot_done(void);
/* At a normal MPI_Finalize that leaves work for the CLI (the trace's deferred conversion):
 * saved one last time with HOW (MPILENS_SNAPSHOT_FINALIZED), no more snapshots, and the file
 * kept for mpilens_module_recover. */
#define MPILENS_SNAPSHOT_FINALIZED "MPI_Finalize"
/* The trailer of a periodic save (the rank was still running then). */
#define MPILENS_SNAPSHOT_PERIODIC "last periodic snapshot (its end was not seen)"
MPILENS_SNAPSHOT_API void mpilens_snapshot_keep(const char *how);

/* At a normal MPI_Finalize, after the module wrote its results: the snapshot goes when
 * WRITTEN, else it is kept with HOW for `mpilens recover` (mpilens_snapshot_keep). */
MPILENS_SNAPSHOT_API void mpilens_snapshot_end(int written, const char *how);

/* Writing helpers for writers: all of BUF, or -1. */
MPILENS_SNAPSHOT_API int mpilens_write_all(int fd, const void *buf, size_t len);

/* Items of one section written through a fixed buffer (no malloc), or only counted (fd -1):
 * writers make a counting pass for their headers, then a writing pass. */
struct mpilens_emitter {
    int fd; /* -1: count only */
    uint64_t count;
    size_t used;
    int failed;
    char buf[4096];
};
MPILENS_SNAPSHOT_API void mpilens_emit(struct mpilens_emitter *e, const void *item, size_t size);
/* Writes what is buffered; 0, or -1 if any write of E failed. */
MPILENS_SNAPSHOT_API int mpilens_emit_flush(struct mpilens_emitter *e);

/* Reading back (recovery, not in a signal handler): the file's bytes (malloc'ed, *LEN) up
 * to its trailer, and the trailer's reason in HOW; NULL if the file is not a snapshot. */
MPILENS_SNAPSHOT_API char *mpilens_snapshot_read(const char *path, size_t *len, char *how,
                                                 size_t howlen);

/* ---- recovery helpers (for a module's mpilens_module_recover) ---- */

struct mpilens_snapshot_ending {
    int rank;
    char how[64];
};
struct mpilens_snapshot_endings {
    struct mpilens_snapshot_ending *at;
    int count, world_size;
};

/* Reads every DIR/partial/MODULE.RANK file and hands its data to ABSORB, which returns 0
 * (or -1: damaged, skipped) and sets *WORLD to the job's size. Returns how many files were
 * absorbed, with how each rank ended in ENDINGS. */
MPILENS_SNAPSHOT_API int
mpilens_snapshot_gather(const char *dir, const char *module,
                        int (*absorb)(void *ctx, const char *data, size_t len, int32_t *world),
                        void *ctx, struct mpilens_snapshot_endings *endings);
/* Records in DIR/mpilens.db that the run is incomplete (metadata `Incomplete`: "ranks 0, 2:
 * signal 15; rank 1: MPI_Abort; nothing saved by rank 3") and its size (`Processes`). */
MPILENS_SNAPSHOT_API int mpilens_snapshot_mark_incomplete(const char *dir,
                                                          const struct mpilens_snapshot_endings *e,
                                                          char *err, size_t errlen);
/* 1 if every rank of the job saved its file at MPI_Finalize (mpilens_snapshot_keep): the run
 * is complete, its module only left its merge to the CLI. */
MPILENS_SNAPSHOT_API int mpilens_snapshot_all_finalized(const struct mpilens_snapshot_endings *e);
MPILENS_SNAPSHOT_API void mpilens_snapshot_endings_free(struct mpilens_snapshot_endings *e);

#ifdef __cplusplus
}
#endif

#endif
