#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate the core's MPI_X entries and PMPI_X steps from the installed mpi.h.

Usage: gen_wrappers.py PREPROCESSED_MPI_H OUT_DIR

Writes OUT_DIR/lens_wrappers_N.c (N < PARTS; one MPI_X and one PMPI_X per function, built on
the macros of src/core/dispatch.h), OUT_DIR/lens_wrappers.c (their slots and level tables)
and OUT_DIR/lens_functions.c (the name table the loader
and the CLI use). Run at build time so the core adapts to the MPI it is built against.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse_mpi_h import parse  # noqa: E402

# MPI-1 functions Open MPI 4.1 still exports although its mpi.h no longer declares them
# (unless configured with --enable-mpi1-compatibility). Their C signatures never changed.
REMOVED_MPI1 = '''
int PMPI_Address(void *location, MPI_Aint *address);
int PMPI_Errhandler_create(void *function, MPI_Errhandler *errhandler);
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Type_extent(MPI_Datatype type, MPI_Aint *extent);
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_lb(MPI_Datatype type, MPI_Aint *lb);
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_ub(MPI_Datatype type, MPI_Aint *ub);
'''


def param_decl(p):
    return '...' if p[1] == '...' else '%s %s%s' % p


# Functions that are one for the isolation rule of dispatch.h (a tool may turn one into the
# other): each maps to the first name of its group.
FAMILIES = (('MPI_Init', 'MPI_Init_thread'),)


def family(name, index, k):
    """The family number of function K (NAME): its own index unless FAMILIES groups it."""
    for group in FAMILIES:
        if name in group and group[0] in index:
            return index[group[0]]
    return k


def preboot_decl(ret, name, plist):
    """The declaration of function NAME's pre-boot trampoline (its fixed parameters)."""
    fixed_only = ', '.join(param_decl(p) for p in plist if p[1] != '...') or 'void'
    return 'LENS_HIDDEN __attribute__((noinline, cold)) %s lens_preboot_%s(%s)' % (ret, name[4:], fixed_only)


def emit_function(k, fam, ret, name, plist, undef):
    """One typedef, three out-of-line runners (from the top, from the caller's hop, a
    module's own call), one MPI_ entry, one PMPI_ step (and its alias mpilens_down_MPI_X)
    and the steps of levels 1 to 16 (non-variadic functions; dispatch.h, LENS_LEVEL_STEP).
    The runners take the function's own arguments unchanged, so calling one shuffles no
    registers."""
    decl = ', '.join(param_decl(p) for p in plist) or 'void'
    fixed = [p for p in plist if p[1] != '...']
    fixed_decl = ''.join(', ' + param_decl(p) for p in fixed)
    args = ''.join(', ' + p[1] for p in fixed)
    short = name[4:]
    ftype, top, step = 'lens_fn_%s' % short, 'lens_top_%s' % short, 'lens_step_%s' % short
    own = 'lens_own_%s' % short
    out = []
    if undef:
        out.append('#undef %s\n#undef P%s' % (name, name))
    out.append('typedef %s (*%s)(%s);' % (ret, ftype, decl))
    fixed_only = ', '.join(param_decl(p) for p in fixed) or 'void'
    for runner, hop in ((top, 'LENS_TOP_HOP'), (step, 'LENS_CALLER_HOP')):
        out.append('static __attribute__((noinline)) %s %s(%s)\n'
                   '{ LENS_RUN(%s, %s, %d, %d, %s%s); }' % (ret, runner, fixed_only, ret, ftype, k, fam, hop, args))
    out.append('static __attribute__((noinline)) %s %s(%s)\n'
               '{ LENS_OWN(%s, %d, %s%s); }' % (ret, own, fixed_only, ftype, k, top, args))
    out.append('%s %s(%s) { LENS_ENTRY(%d, %s, %s, %s%s); }' % (ret, name, decl, k, ftype, top, own, args))
    # Before boot the slot's top hop is this trampoline, as if it were the library: it boots
    # and enters again (a tail call: the application's return address stays the call site).
    out.append('%s { LENS_PREBOOT(%d); return %s(%s); }' % (preboot_decl(ret, name, plist), k, name, args[2:]))
    out.append('%s P%s(%s) { LENS_STEP(%d, %d, %s, %s%s); }' % (ret, name, decl, k, fam, ftype, step, args))
    # A chained module's pass-down (gen_down.py): the core's PMPI_X until chain.c binds it.
    out.append('%s mpilens_down_%s(%s) __attribute__((alias("P%s")));' % (ret, name, decl, name))
    if not variadic(plist):
        for level in range(1, STUB_LEVELS + 1):
            out.append('%s { LENS_LEVEL_STEP(%d, %d, %d, %s, %s, P%s%s); }'
                       % (level_step_decl(ret, level, short, decl), level, k, fam, ftype, step, name, args))
    return '\n'.join(out)


STUB_LEVELS = 16  # LENS_STUB_LEVELS in dispatch.h
# The functions' wrappers go into this many files, compiled side by side (one file of all
# took 60 s for Open MPI's mpi.h and 94 s for MPICH's, alone on one core, in every build).
PARTS = 4


def level_steps_decl_all(funcs):
    """The declarations of every level step, for the tables of lens_wrappers.c."""
    out = []
    for ret, name, plist in funcs:
        if variadic(plist):
            continue
        decl = ', '.join(param_decl(p) for p in plist) or 'void'
        out.extend('%s;' % level_step_decl(ret, level, name[4:], decl)
                   for level in range(1, STUB_LEVELS + 1))
    return '\n'.join(out) + '\n'


def level_step_decl(ret, level, short, decl):
    """The declaration of function SHORT's step of LEVEL (in a part file, its table in
    lens_wrappers.c)."""
    return 'LENS_HIDDEN %s lens_l%d_%s(%s)' % (ret, level, short, decl)


def variadic(plist):
    return any(p[1] == '...' for p in plist)


def level_steps_table(funcs):
    """lens_level_steps[L][k]: the step of level L for function k (NULL for variadic
    functions, which keep the generic step)."""
    out = []
    for level in range(1, STUB_LEVELS + 1):
        out.append('static const lens_voidfn level_%d[] = {' % level)
        for _, name, plist in funcs:
            out.append('    %s,' % ('0' if variadic(plist) else '(lens_voidfn)lens_l%d_%s' % (level, name[4:])))
        out.append('};')
    out.append('LENS_HIDDEN const lens_voidfn *const lens_level_steps[LENS_STUB_LEVELS + 1] = {0, %s};'
               % ', '.join('level_%d' % l for l in range(1, STUB_LEVELS + 1)))
    return '\n'.join(out) + '\n'


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: gen_wrappers.py PREPROCESSED_MPI_H OUT_DIR')
    with open(sys.argv[1]) as f:
        funcs = parse(f.read())
    declared = {f[1] for f in funcs}
    extra = [f for f in parse(REMOVED_MPI1) if f[1] not in declared]
    funcs = sorted(funcs + extra, key=lambda f: f[1])
    extra_names = {f[1] for f in extra}
    os.makedirs(sys.argv[2], exist_ok=True)
    head = ('/* Generated by src/gen/gen_wrappers.py from the installed mpi.h: do not edit. */\n'
            '#include "dispatch.h"\n\n'
            '/* The trampolines call every MPI_X by name, deprecated ones too. */\n'
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n')
    # lens_wrappers.c: the slots and the level tables; lens_wrappers_N.c: the wrappers of
    # every PARTS-th function from N (each function's runners, entries and steps together)
    with open(os.path.join(sys.argv[2], 'lens_wrappers.c'), 'w') as out:
        out.write(head)
        for ret, name, plist in funcs:
            out.write('%s;\n' % preboot_decl(ret, name, plist))
        out.write(level_steps_decl_all(funcs))
        out.write('LENS_HIDDEN struct lens_slot lens_slots[%d] = {\n' % len(funcs))
        for k, (_, name, _) in enumerate(funcs):
            out.write('    {.top = {(lens_voidfn)lens_preboot_%s, 0, 1}, .hops = &lens_slots[%d].top},\n' %
                      (name[4:], k))
        out.write('};\n\n')
        out.write(level_steps_table(funcs))
    index = {name: k for k, (_, name, _) in enumerate(funcs)}
    for part in range(PARTS):
        with open(os.path.join(sys.argv[2], 'lens_wrappers_%d.c' % part), 'w') as out:
            out.write(head)
            for k, (ret, name, plist) in enumerate(funcs):
                if k % PARTS == part:
                    fam = family(name, index, k)
                    out.write(emit_function(k, fam, ret, name, plist, name in extra_names) + '\n\n')
    with open(os.path.join(sys.argv[2], 'lens_functions.c'), 'w') as out:
        out.write('/* Generated by src/gen/gen_wrappers.py: names of the wrapped MPI functions. */\n')
        out.write('#include "lens_functions.h"\n\n')
        out.write('const int lens_function_count = %d;\n' % len(funcs))
        out.write('const char *const lens_function_names[] = {\n')
        for _, name, _ in funcs:
            out.write('    "%s",\n' % name)
        out.write('    0};\n')
    print('gen_wrappers: %d MPI functions (%d removed MPI-1 ones added)' % (len(funcs), len(extra)))


if __name__ == '__main__':
    main()
