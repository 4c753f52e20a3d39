/* SPDX-License-Identifier: BSD-3-Clause */
/* pop_bounds.h: the POP metrics kept within their definitions. Each is a ratio bounded by
 * [0, 1] by definition (load balance, communication, serialization, transfer and parallel
 * efficiency); measurement (clocks read on different cores, a rank's start-up counted
 * twice) or the replay's model (its ideal run measured on other clocks than the real one)
 * can push one a little across. Every view reads them through pop_run.h, which brings them
 * back here, one rule for all (docs/efficiency.md, Within bounds); the database keeps what
 * was measured.
 */
#ifndef LENS_POP_BOUNDS_H
#define LENS_POP_BOUNDS_H

/* V brought into [0, 1]; a negative V < -0.5 (-1: absent) stays as it is. */
double pop_within_unit(double v);

/* The replay's pair (either -1: not analyzed) brought back: an ideal network is never
 * slower than the real one, so an ideal run longer than the real one (*TRANSFER > 1) is
 * taken as long as the real one: TE = 1, and SerE = computing / the real length, which is
 * SerE x TE as measured; both then within [0, 1]. SerE x TE = the communication
 * efficiency the replay saw, before and after. */
void pop_replay_within(double *serialization, double *transfer);

#endif
