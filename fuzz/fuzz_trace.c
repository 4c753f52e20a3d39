/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_trace.c: libFuzzer target for the trace readers of `mpilens export` (our callbacks
 * on what OTF2 decodes, the clock correction, the format and missing-rank checks). Each
 * input is one file of a real 4-rank trace (fuzz/trace-seed: point-to-point, collectives,
 * one-sided epochs), replaced whole: the first byte picks the file (the anchor, the
 * global definitions, or a rank's definitions or events), the rest is its new content.
 * The export must end with 0 or a one-line error, never crash or hang.
 */
#include <sys/stat.h>

#include "fuzz_common.h"

int cli_export(int argc, char **argv);

static const char *const files[] = {"trace/traces.otf2",  "trace/traces.def",
                                    "trace/traces/0.def", "trace/traces/0.evt",
                                    "trace/traces/1.evt", "trace/traces/3.evt"};
#define NFILES (sizeof files / sizeof *files)

static char seed[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *env = getenv("MPILENS_FUZZ_TRACE_SEED");
    snprintf(seed, sizeof seed, "%s", env ? env : "fuzz/trace-seed");
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/trace/traces.otf2", seed);
    if (access(probe, R_OK) != 0) {
        fprintf(stderr, "fuzz_trace: %s missing; set MPILENS_FUZZ_TRACE_SEED to fuzz/trace-seed\n",
                probe);
        exit(2);
    }
    return 0;
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char run[600], path[5000], from[5000];
    snprintf(run, sizeof run, "%s/run", fuzz_dir());
    mkdir(run, 0700);
    snprintf(path, sizeof path, "%s/trace", run);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/trace/traces", run);
    mkdir(path, 0700);
    static const char *const all[] = {
        "trace/traces.otf2",  "trace/traces.def",   "trace/traces/0.def", "trace/traces/0.evt",
        "trace/traces/1.def", "trace/traces/1.evt", "trace/traces/2.def", "trace/traces/2.evt",
        "trace/traces/3.def", "trace/traces/3.evt"};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        snprintf(from, sizeof from, "%s/%s", seed, all[i]);
        snprintf(path, sizeof path, "%s/%s", run, all[i]);
        copy_file(from, path);
    }
    snprintf(path, sizeof path, "%s/%s", run, files[data[0] % NFILES]);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    char out[700];
    snprintf(out, sizeof out, "%s/out.json", fuzz_dir());
    char *argv[] = {"export", run, "--chrome", out, NULL};
    cli_export(4, argv);
    return 0;
}
