/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_life.c: the trace module's life: its description and arguments, MPI_Init (the
 * trace starts: trc_core.c), MPI_Abort (a last save) and MPI_Finalize (the trace ends).
 */
#include <mpilens.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_bytes.h"
#include "module_life.h"
#include "trc.h"
#include "trc_wrap.h"

#define enter trc_enter
#define leave trc_leave

/* ---- life ---- */

const char mpilens_module_description[] =
    "OTF2 event trace per rank (MPI regions, messages, collectives, clock offsets) in DIR/trace";
/* Alone in the stack, entered without the core's runners (mpilens.h): the trace needs neither call
 * sites nor levels. */
const int mpilens_module_direct = 1;
/* Chained (mpilens.h): the application's calls go on through MPILENS_DOWN, the module's
 * own calls through PMPI_ functions. */
const int mpilens_module_chained = 1;

/* trace:buffer=SIZE (bytes, or with K, M or G): the event buffer of each rank. */
const char mpilens_module_arguments[] =
    "buffer=SIZE  the event buffers of each thread, in bytes or with K, M or G, from 4096 to "
    "16G (default 4M)\n"
    "convert=WHEN  when the event logs become the OTF2 archive: after (the default, however "
    "the run is started: the application pays for recording only; mpilens run converts after "
    "the job, several ranks at once; for a run without it, mpilens recover DIR, or mpilens "
    "analyze or export first) or finalize (each rank converts its own at MPI_Finalize)\n";

/* buffer=SIZE in bytes (K, M, G allowed), or 0 if it is not one from 4096 to 16G. */
static unsigned long long buffer_bytes(const char *buffer)
{
    char *end = NULL;
    unsigned long long bytes = strtoull(buffer, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (end == buffer || *end != '\0' || bytes > (1ULL << 34) || (bytes << shift) < 4096 ||
        (bytes << shift) > (1ULL << 34))
        return 0;
    return bytes << shift;
}

int mpilens_module_check(const char *key, const char *value, char *why, size_t len)
{
    if (strcmp(key, "buffer") == 0 && buffer_bytes(value) == 0) {
        snprintf(why, len,
                 "trace: buffer=%s: give the event buffer's size from 4096 bytes to 16G, as bytes "
                 "or with K, M or G (trace:buffer=8M)",
                 value);
        return -1;
    }
    if (strcmp(key, "convert") == 0 && strcmp(value, "finalize") != 0 &&
        strcmp(value, "after") != 0) {
        snprintf(why, len,
                 "trace: convert=%s: give finalize (each rank at MPI_Finalize) or after (mpilens "
                 "run, after the job): trace:convert=after",
                 value);
        return -1;
    }
    return 0;
}

int mpilens_module_init(const struct mpilens_module_args *args)
{
    const char *buffer = mpilens_module_arg(args, "buffer", NULL);
    if (buffer) {
        char value[32];
        snprintf(value, sizeof value, "%llu", buffer_bytes(buffer));
        setenv("MPILENS_TRACE_BUFFER", value, 1);
    }
    const char *convert = mpilens_module_arg(args, "convert", NULL);
    if (convert)
        setenv("MPILENS_TRACE_CONVERT", convert, 1);
    return 0;
}

/* the trace starts once the library's init succeeded (any thread level: each thread
 * records into its own log) */
static void started(int provided)
{
    (void)provided;
    trc_start();
}

LENS_MODULE_LIFE(started)

static int finalize_run(void)
{
    trc_finish();
    return MPILENS_DOWN(Finalize)();
}

int MPI_Finalize(void)
{
    return finalize_run();
}

LENS_SESSION_LIFE(lens_life_init_thread, finalize_run)
