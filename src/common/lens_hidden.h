/* SPDX-License-Identifier: BSD-3-Clause */
/* lens_hidden.h: the one spelling of "internal to this shared object": LENS_HIDDEN before a
 * declaration. The core, each module and the CLI compile the common code into themselves,
 * so nothing of it may be exported (two modules would bind to one copy). A header whose
 * every declaration is internal (a module's own, prof.h) says it once around them instead:
 * #pragma GCC visibility push(hidden) ... pop.
 */
#ifndef LENS_HIDDEN_H
#define LENS_HIDDEN_H

#define LENS_HIDDEN __attribute__((visibility("hidden")))

#endif
