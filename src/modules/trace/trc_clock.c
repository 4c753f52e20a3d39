/* SPDX-License-Identifier: BSD-3-Clause */
/* trc_clock.c: the event log's clock: which one a run reads, the (counter, ns) pairs that
 * map it to CLOCK_MONOTONIC, and the check at MPI_Finalize that the map held.
 *
 * The counter is read where the CPU says it is invariant (constant rate in every P-, C- and
 * T-state: CPUID 0x80000007 EDX bit 8 on x86-64; the architectural timer cntvct_el0 on
 * aarch64), whatever clocksource the kernel chose: cloud VMs run kvm-clock or
 * hyperv_clocksource over an invariant TSC, and reading the TSC there costs a tenth of
 * clock_gettime. Elsewhere, or with MPILENS_TRACE_CLOCK=monotonic, the log keeps
 * CLOCK_MONOTONIC nanoseconds, and rank 0 says so once when it was not asked for.
 *
 * The conversion maps ticks linearly through the pairs read at MPI_Init and MPI_Finalize
 * (trc_defs.h, trc_time_ns). The pairs read during the run (at each log flush and snapshot,
 * beside a write) measure how far the run's clock strayed from that line: a VM moved to
 * another host, or a counter that is not what CPUID says. trc_clock_check returns it, and
 * trc_core.c records it in the trace and says it when past 1 us per second of run.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "trc.h"
#include "trc_log.h"

int trc_use_tsc;

/* 1 if this CPU's counter runs at a constant rate whatever the power state. */
static int counter_invariant(void)
{
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#elif defined(__aarch64__)
    return 1; /* the generic timer's virtual count: a fixed frequency by the architecture */
#else
    return 0;
#endif
}

void trc_clock_setup(int rank)
{
    const char *asked = getenv("MPILENS_TRACE_CLOCK"); /* "monotonic": the kernel's clock */
    int monotonic = asked && strcmp(asked, "monotonic") == 0;
    trc_use_tsc = !monotonic && counter_invariant();
    if (!trc_use_tsc && !monotonic && rank == 0)
        fprintf(stderr, "mpilens: trace: this CPU's time-stamp counter is not invariant; the "
                        "trace reads clock_gettime instead (a few tens of ns more a call)\n");
}

/* A pair and its reading error (half the tightest clock_gettime bracket, ns). */
static uint32_t pair_read(uint64_t *log_time, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16 && best > 2000; i++) {
        uint64_t before = trc_clock_ns(), t = trc_now(), after = trc_clock_ns();
        if (after - before < best) {
            best = after - before;
            *log_time = t;
            *ns = before + (after - before) / 2;
        }
    }
    return (uint32_t)(best / 2 + 1);
}

void trc_clock_pair(uint64_t *log_time, uint64_t *ns)
{
    pair_read(log_time, ns);
}

/* The pairs read during the run: the first half of the slots kept, the second a ring, so a
 * long run keeps its start and its latest stretch. */
#define SAMPLES 64
static struct sample {
    uint64_t tick, ns;
    uint32_t error;
} samples[SAMPLES];
static uint32_t nsamples;

void trc_clock_sample(void)
{
    if (!trc_use_tsc)
        return;
    struct sample s;
    s.error = pair_read(&s.tick, &s.ns);
    uint32_t i = __atomic_fetch_add(&nsamples, 1, __ATOMIC_RELAXED);
    samples[i < SAMPLES ? i : SAMPLES / 2 + (i - SAMPLES / 2) % (SAMPLES / 2)] = s;
}

uint32_t trc_clock_check(uint64_t tick0, uint64_t ns0, uint64_t tick1, uint64_t ns1)
{
    uint32_t n = __atomic_load_n(&nsamples, __ATOMIC_RELAXED);
    if (!trc_use_tsc || tick1 <= tick0 || ns1 <= ns0)
        return 0;
    double rate = (double)(ns1 - ns0) / (double)(tick1 - tick0), worst = 0;
    for (uint32_t i = 0; i < (n < SAMPLES ? n : SAMPLES); i++) {
        const struct sample *s = &samples[i];
        if (s->tick <= tick0 || s->tick >= tick1)
            continue;
        double off = (double)ns0 + (double)(s->tick - tick0) * rate - (double)s->ns;
        double beyond = (off < 0 ? -off : off) - s->error;
        if (beyond > worst)
            worst = beyond;
    }
    return worst >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)worst;
}
