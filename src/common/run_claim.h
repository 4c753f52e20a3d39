/* SPDX-License-Identifier: BSD-3-Clause */
/* run_claim.h: a run's hold on its output directory, and the problems its ranks meet while
 * writing (docs/architecture.md, "When writing fails").
 *
 * DIR/.mpilens-run is made by `mpilens run` before the job starts (by rank 0 at MPI_Init
 * in a run without the command, src/core/run_hooks.c). The command holds an flock on it
 * for the whole run (the kernel drops it if the command dies), so a second run
 * into the same directory is refused before it launches anything; it removes the file when
 * the run is over (the problems said, and kept in the database's `Incomplete`). The file is written
 * full of zeros at once: LENS_CLAIM_SLOTS slots of LENS_CLAIM_SLOT bytes whose blocks exist before
 * the job starts, so a rank can still record "No space left on device" in it when the disk is full.
 * Slot 0 names the holder; each other slot holds one problem, "KEY\tSAID\tTEXT" (SAID: 1 if its
 * rank printed it, the first of its KEY), written under an fcntl lock on the file (ranks on several
 * nodes of a shared file system).
 */
#ifndef LENS_RUN_CLAIM_H
#define LENS_RUN_CLAIM_H

#include "lens_hidden.h"

#include <stddef.h>

#define LENS_CLAIM_FILE ".mpilens-run"
#define LENS_CLAIM_SLOTS 64
#define LENS_CLAIM_SLOT 512

/* The exit status of `mpilens run` when the application succeeded but its results are
 * incomplete (a write failed, a rank did not reach MPI_Finalize). */
#define LENS_EXIT_INCOMPLETE 3

/* Takes DIR's claim: 0 with *FD held (keep it open for the run), 1 when another run holds
 * it (HOLDER says which), -1 with errno when the file cannot be made or written. */
LENS_HIDDEN int lens_claim_take(const char *dir, int *fd, char *holder, size_t len);

/* Ends DIR's claim taken as FD: its file removed while still held (a run waiting for it
 * then finds it gone and makes its own, lens_claim_take), then FD closed. */
LENS_HIDDEN void lens_claim_release(const char *dir, int fd);

/* Records a problem of KEY (a module's name, "snapshot") with TEXT in the claim file of DIR.
 * Returns 1 if no problem of KEY was recorded before (the caller says it), 0 if one was,
 * -1 if DIR has no claim file (a run without `mpilens run`: the caller says it). */
LENS_HIDDEN int lens_problem_record(const char *dir, const char *key, const char *text);

/* Calls EACH for every problem recorded in DIR's claim file (SAID: a rank printed it);
 * returns how many. */
LENS_HIDDEN int
lens_problems_read(const char *dir,
                   void (*each)(const char *key, const char *text, int said, void *ctx), void *ctx);

#endif
