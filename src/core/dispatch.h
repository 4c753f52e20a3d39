/* SPDX-License-Identifier: BSD-3-Clause */
/* dispatch.h: the per-function dispatch tables of the core and the two macros that the
 * generated wrappers (build/gen/lens_wrappers.c) are made of.
 *
 * Levels: 0 is the application, 1..n are the loaded modules in stack order. For every MPI
 * function X, hops[l] says where a call to PMPI_X made at level l goes next: the first
 * module after l that wraps X, or the MPI library (direct = 1, a plain tail call). MPI_X
 * always starts at hops[0] (the top). A PMPI_X whose caller is the MPI library itself
 * (libmpi calls some PMPI_ functions through its PLT) goes straight to the library.
 * The tables are built once, before main(), and only read afterwards, so the dispatch is
 * thread-safe with nothing but a thread-local context.
 *
 * Isolation (docs/architecture.md): the context also says which function the running
 * level wraps (its family: MPI_Init and MPI_Init_thread are one). Inside module i's wrapper
 * of X, PMPI_X is the application's call going on down; PMPI_Y (Y != X) is the module's
 * own traffic and goes straight to the library; MPI_Y goes to module i's own wrapper of Y
 * if it has one (whose PMPI_Y then reaches the library), else to the library. So no module
 * sees another's traffic, and a third-party tool's own calls reach the library as when it
 * is preloaded alone.
 */
#ifndef LENS_DISPATCH_H
#define LENS_DISPATCH_H

#include "lens_hidden.h"

#include <mpi.h>
#include <stdint.h>

typedef void (*lens_voidfn)(void);

struct lens_hop {
    lens_voidfn fn; /* module wrapper or library function to call */
    int level;      /* level to run it at */
    int direct;     /* 1: fn is the MPI library (or a core hook, or a module entered
                       directly): call without level change; LENS_CHAINED (top hops only):
                       the same after storing the call site (chain.c) */
};

struct lens_slot {
    struct lens_hop top;         /* hops[0], copied here so MPI_X reads one cache line */
    const struct lens_hop *hops; /* n + 1 hops, indexed by the caller's level (before boot:
                                    &top, a one-hop table) */
    lens_voidfn real;            /* the MPI library's own PMPI_X */
};

extern LENS_HIDDEN struct lens_slot lens_slots[];
/* The running level and the family of the function it wraps (meaningful above level 0),
 * one 8-byte thread-local word so that a runner saves and restores both at once. */
struct lens_context {
    int level;
    int wrapping;
};
extern LENS_HIDDEN __thread struct lens_context lens_ctx __attribute__((tls_model("initial-exec")));
#define lens_level (lens_ctx.level)
/* The application's call site of the MPI call being made: the return address of the MPI_X
 * entry, stored on the way in (a register read and a store); mpilens_caller() reads it. */
extern LENS_HIDDEN __thread void *lens_caller __attribute__((tls_model("initial-exec")));

/* MPI_X (function K) called while module lens_level runs: the module's own wrapper of X
 * or the library when the call comes from the module itself (its code, or its tail call
 * seen from libmpilens); NULL when it comes from application code the library called back
 * at that level (then it enters the stack from the top). */
LENS_HIDDEN lens_voidfn lens_own_route(int k, uintptr_t caller);
extern LENS_HIDDEN uintptr_t lens_lib_lo, lens_lib_span;   /* the MPI library's code */
extern LENS_HIDDEN uintptr_t lens_self_lo, lens_self_span; /* libmpilens's own code */

/* Resolves the library, loads the configured modules and fills lens_slots (idempotent). */
LENS_HIDDEN void lens_boot(void);
/* A call before boot (another library's constructor calling MPI before ours ran): until
 * boot, every slot's top hop is a generated trampoline taken as if it were the library
 * (direct), and hops points to it, so MPI_X and PMPI_X both reach it without a test of
 * their own. It boots and calls MPI_X again; boot replaces the hop, or the process has no
 * MPI library and lens_preboot stops it with one line. */
LENS_HIDDEN void lens_preboot(int k);
#define LENS_PREBOOT(K) lens_preboot(K)

#define LENS_LIKELY(x) __builtin_expect(!!(x), 1)
#define LENS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Returns from a module's wrapper restore the caller's level (RUN keeps a frame for that).
 * A module that tail-calls PMPI_X (`return PMPI_X(...)`, what compilers emit for thin
 * wrappers) leaves nothing to restore: its return goes straight to the RUN frame that
 * entered it, which restores the level. We see that case as a return address inside
 * libmpilens itself, and then jump on without a frame, so a stack of thin layers nests
 * one frame deep instead of N (no return-stack-buffer overflow at 100 layers). */
#define LENS_RA_IN(LO, SPAN) ((uintptr_t)__builtin_return_address(0) - (LO) < (SPAN))
#define LENS_FROM(LO, SPAN) (LENS_UNLIKELY(LENS_RA_IN(LO, SPAN)))

/* MPI_X: unwrapped functions cost one indirect tail call (no module runs, so the call site
 * is stored only for a call that reaches one). In a chained stack (chain.c) a wrapped
 * function's first module is jumped to after the call site is stored, whatever the level
 * (only application code calls MPI_X there). Above level 0, a module is calling for
 * itself (lens_own_route). */
#define LENS_CHAINED 2
/* Read again (volatile), so that the test before it stays one compare with memory instead
 * of a load both tests share (one instruction more on every unwrapped call). */
static inline int lens_top_chained(const struct lens_slot *s)
{
    return ((const volatile struct lens_hop *)&s->top)->direct == LENS_CHAINED;
}
#define LENS_ENTRY(K, T, RUN, OWN, ...)                                                            \
    const struct lens_slot *s_ = &lens_slots[K];                                                   \
    if (LENS_LIKELY(s_->top.direct == 1)) /* one compare with memory */                            \
        return ((T)s_->top.fn)(__VA_ARGS__);                                                       \
    if (LENS_LIKELY(lens_top_chained(s_))) {                                                       \
        lens_caller = __builtin_return_address(0);                                                 \
        return ((T)s_->top.fn)(__VA_ARGS__);                                                       \
    }                                                                                              \
    if (LENS_UNLIKELY(lens_level != 0))                                                            \
        return OWN(__VA_ARGS__);                                                                   \
    lens_caller = __builtin_return_address(0);                                                     \
    return RUN(__VA_ARGS__)

/* Body of the out-of-line runner of a module's own MPI_X (reached by a tail call from the
 * entry, so its return address is still the module's call site). TOP is the top runner,
 * for application code called back by the library at a module's level. */
#define LENS_OWN(T, K, TOP, ...)                                                                   \
    lens_voidfn own_ = lens_own_route(K, (uintptr_t)__builtin_return_address(0));                  \
    if (own_)                                                                                      \
        return ((T)own_)(__VA_ARGS__);                                                             \
    return TOP(__VA_ARGS__)

/* A PMPI_ call of family FAM made at a module's level for the module itself (the level
 * wraps another function): it goes to the library. At level 0 (the application, or a
 * library that calls PMPI_X, such as Open MPI's Fortran bindings) the call enters the
 * stack. One compare on the common path. */
#define LENS_OWN_TRAFFIC(FAM) (LENS_UNLIKELY(lens_ctx.wrapping != (FAM)) && lens_level != 0)

/* PMPI_X: the step from the running level to the next module that wraps X. The common
 * case in a stack of thin layers (a tail call from a module, seen as a return address
 * inside libmpilens) comes first and jumps on with the next hop's level set (the library's
 * hop has level 0: callbacks from the library into the application run at its level). A
 * call from inside the MPI library goes straight back to the library, as does a module's
 * own traffic. Before boot, hops points to the slot's own top hop: the pre-boot trampoline,
 * a direct hop. */
#define LENS_STEP(K, FAM, T, RUN, ...)                                                             \
    const struct lens_slot *s_ = &lens_slots[K];                                                   \
    const struct lens_hop *h_;                                                                     \
    if (LENS_FROM(lens_self_lo, lens_self_span)) {                                                 \
        if (LENS_OWN_TRAFFIC(FAM))                                                                 \
            return ((T)s_->real)(__VA_ARGS__);                                                     \
        h_ = &s_->hops[lens_level];                                                                \
        lens_ctx_set(h_->level, lens_ctx.wrapping);                                                \
        return ((T)h_->fn)(__VA_ARGS__);                                                           \
    }                                                                                              \
    if (LENS_FROM(lens_lib_lo, lens_lib_span) || LENS_OWN_TRAFFIC(FAM))                            \
        return ((T)s_->real)(__VA_ARGS__);                                                         \
    h_ = &s_->hops[lens_level];                                                                    \
    if (h_->direct)                                                                                \
        return ((T)h_->fn)(__VA_ARGS__);                                                           \
    return RUN(__VA_ARGS__)

/* A module's PMPI_X references, in a stack of several, are bound at boot to the step of
 * its own level (levels.c): LENS_STEP with the level known, for the common cases (the
 * module runs at its level, inside X's family): a thin layer's tail call jumps on from a
 * jump of its own. One shared jump whose target changes with the level mispredicts at
 * every layer of a deep stack (its branch history is the same at every level); each
 * level's own jump has one target. A call from the module's code (not a tail call) goes
 * to the next hop as LENS_STEP sends it. Anything else goes on to the generic step (a
 * tail call: the return address it reads stays the module's). */
#define LENS_STUB_LEVELS 16 /* levels 1..16 have their own steps */
/* A context as one 8-byte word, so that level and family are compared at once (the
 * compiler folds the word of a constant context). */
static inline uint64_t lens_ctx_word(struct lens_context c)
{
    uint64_t w;
    _Static_assert(sizeof c == sizeof w, "struct lens_context is one 8-byte word");
    __builtin_memcpy(&w, &c, sizeof w);
    return w;
}
/* The context set to LEVEL wrapping family WRAPPING in one 8-byte store. The next layer's
 * step reads the context as one word, and an 8-byte load over a 4-byte store just made
 * cannot take its value from the store buffer: the load waits until the store retires
 * (about 20 cycles a layer: on AMD EPYC family 25 model 17 a stack of empty layers cost 5.5
 * ns a layer with the level stored alone, bench/stack_overhead.py). */
static inline void lens_ctx_set(int level, int wrapping)
{
    _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "level in the low half");
    uint64_t w = (uint32_t)level | (uint64_t)(uint32_t)wrapping << 32;
    __builtin_memcpy(&lens_ctx, &w, sizeof w);
}
#define LENS_LEVEL_STEP(L, K, FAM, T, RUN, STEP, ...)                                              \
    if (LENS_LIKELY(lens_ctx_word(lens_ctx) ==                                                     \
                    lens_ctx_word((struct lens_context){(L), (FAM)}))) {                           \
        const struct lens_hop *hl_ = &lens_slots[K].hops[L];                                       \
        if (LENS_LIKELY(LENS_RA_IN(lens_self_lo, lens_self_span))) { /* falls through: one taken   \
                                                                      * jump a layer fewer */      \
            lens_ctx_set(hl_->level, (FAM));                                                       \
            return ((T)hl_->fn)(__VA_ARGS__);                                                      \
        }                                                                                          \
        if (!LENS_FROM(lens_lib_lo, lens_lib_span)) {                                              \
            if (hl_->direct)                                                                       \
                return ((T)hl_->fn)(__VA_ARGS__);                                                  \
            return RUN(__VA_ARGS__);                                                               \
        }                                                                                          \
    }                                                                                              \
    if (LENS_UNLIKELY(lens_level0_own_traffic) && lens_ctx.level == 0)                             \
        return ((T)lens_slots[K].real)(__VA_ARGS__);                                               \
    return STEP(__VA_ARGS__)
extern LENS_HIDDEN const lens_voidfn *const lens_level_steps[LENS_STUB_LEVELS + 1];
/* Set when a function is entered straight into its sole wrapper (sole_wrappers.c): a level
 * step reached at level 0 is then that module's own PMPI_ call (only its code reaches its
 * level's step), and goes to the library. */
extern LENS_HIDDEN int lens_level0_own_traffic;

/* Body of the runners: call the hop at its level and restore the caller's context
 * afterwards. A runner finds its hop itself (the slot's top for MPI_X, the caller's level's
 * hop for PMPI_X) instead of taking it as an argument, so the function's arguments stay in
 * their registers. The top runner also says which family the level now wraps (a step stays
 * in the family it checked). No runner is reached before boot (see lens_preboot). */
#define LENS_TOP_HOP(K) (&lens_slots[K].top)
#define LENS_CALLER_HOP(K) (&lens_slots[K].hops[lens_level])
/* A step runner entered at level 0 is a call that entered the stack by PMPI_X (Open MPI's
 * Fortran bindings do that): its return address is the call site (fortran_sites.c). */
#define LENS_SITE_LENS_TOP_HOP 0
#define LENS_SITE_LENS_CALLER_HOP 1
#define LENS_RUN(RET, T, K, FAM, HOP, ...)                                                         \
    const struct lens_hop *hop_ = HOP(K);                                                          \
    struct lens_context saved_ = lens_ctx;                                                         \
    if (LENS_SITE_##HOP && saved_.level == 0)                                                      \
        lens_caller = __builtin_return_address(0);                                                 \
    lens_ctx_set(hop_->level, (FAM));                                                              \
    RET r_ = ((T)hop_->fn)(__VA_ARGS__);                                                           \
    lens_ctx = saved_;                                                                             \
    return r_

#endif
