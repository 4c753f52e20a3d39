#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""module_overhead.py: what the profile (and other) modules add to real communication.

Runs build/bench/module_overhead under several configurations, interleaved for several
rounds, and prints per operation the median ns through the stack, the ns added over the
library's own PMPI_ function measured in the same process, and their ratio. Open MPI's
own monitoring (--mca pml_monitoring_enable 1) lives inside the library, so it cannot be
measured in-process: its row compares its library path with the library path of the run
without any tool (a ratio between runs: noisier). Then the MPI_Finalize time (merge +
database write) for 8 ranks x 100 communicators x 5 operations.

With --callgrind it counts instructions instead (valgrind, one rank sending to itself with
Isend/Recv/Wait): per operation, the instructions the module adds over the library's own
PMPI_ path, and what Open MPI's monitoring adds to the library path. Each count is of N
operations after N to warm up (callgrind --toggle-collect=counted_block: the steady state
alone, without start-up and MPI_Finalize), the same from run to run and whatever else the
machine does. A module may carry arguments; a+b+c is a stack of several (compare it with the
sum of each alone: issue 40); MODULE@monotonic runs it with MPILENS_TRACE_CLOCK=monotonic
(the trace's clock_gettime fallback, which a CPU without an invariant counter takes).
The harness preloads the modules without mpilens run; the trace converts to OTF2 after the
job there too (convert=after, its default however it is started), so its figure is what the
application itself pays; trace:convert=finalize adds each rank's conversion at MPI_Finalize.

With --check MODULE:MSG:ALLREDUCE,... (and --callgrind) it measures only those modules' 0-byte
message and Allreduce, prints them beside the limits and which clock the trace takes on this
machine, and exits 1 if one is past its limit (CTest bench_hot_paths; its runs go as many at
a time as the machine has cores).

With --starts (callgrind) each module is measured started each of the four ways a run starts
the tool (issue 40): preloaded with MPILENS_MODULES, preloaded with a configuration file
(MPILENS_CONF), linked with -lmpilens (bench/module_overhead_linked), and under mpilens run.

Usage: bench/module_overhead.py [BUILD_DIR] [--rounds N] [--np N] [--modules profile,a+b,...]
                                [--callgrind [--n N] [--trials T] [--check MODULE:MSG:ALLREDUCE,...]]
                                [--starts [--n N] [--trials T]]
"""
import argparse
import concurrent.futures
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

from cpu_name import cpu_name

OPS = ('pingpong0', 'pingpong1k', 'allreduce', 'alltoall')
MPIRUN = 'mpirun --allow-run-as-root --oversubscribe'


def split_clock(modules):
    """MODULES without its @VARIANT suffix, and VARIANT ('' without one)."""
    modules, _, clock = modules.partition('@')
    return modules, clock


def variant_env(env, variant):
    """MODULE@monotonic: the trace on clock_gettime; MODULE@nosites: the summary without its
    call-site sample (a clock-driven cold path, whose count depends on how fast the machine,
    or callgrind, runs: docs/summary.md gives its cost over a run)."""
    if variant == 'nosites':
        env['MPILENS_SUMMARY_SITES'] = 'off'
    elif variant:
        env['MPILENS_TRACE_CLOCK'] = variant


def tool_env(build, modules, output):
    """The environment of a run under MODULES (comma-separated; none: no mpilens at all),
    writing into OUTPUT: a new directory each run, so that every run's MPI_Finalize does the
    same work (a database already there, or another harness's, would change its count)."""
    # no periodic snapshot: its thread wakes up by the clock, which moves instruction counts
    env = dict(os.environ, MPILENS_OUTPUT=output, MPILENS_SNAPSHOT='0')
    env.pop('MPILENS_MODULES', None)
    modules, clock = split_clock(modules)
    variant_env(env, clock)
    if modules:
        env['LD_PRELOAD'] = os.path.join(build, 'lib', 'libmpilens.so')
        env['MPILENS_MODULES'] = modules.replace('+', ',')  # a+b: a stack of a and b
    return env


def run(build, np, modules, extra_mpirun='', args=()):
    output = tempfile.mkdtemp(prefix='mpilens-bench-')
    env = tool_env(build, modules, os.path.join(output, 'run'))
    cmd = shlex.split(MPIRUN + ' ' + extra_mpirun) + ['-np', str(np),
                                                      os.path.join(build, 'bench', 'module_overhead')] + list(args)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600).stdout
    shutil.rmtree(output, ignore_errors=True)
    line = [l for l in out.splitlines() if '=' in l and not l.startswith('mpilens')][0]
    return {k: float(v) for k, v in (kv.split('=') for kv in line.split())}


# The ways a run starts the tool (issue 40: the figures must hold for each): preloaded with
# MPILENS_MODULES (the harness's default), preloaded with a configuration file, linked
# (-lmpilens before the MPI library: bench/module_overhead_linked), and under mpilens run.
STARTS = ('preload', 'config', 'linked', 'run')


def started(build, start, modules, output, cmd):
    """The environment and command line of CMD (valgrind ... module_overhead ...) with
    MODULES started the way START says, writing into OUTPUT."""
    modules, clock = split_clock(modules)
    env = tool_env(build, modules if start in ('preload', 'linked') else '', output)
    variant_env(env, clock)  # whichever way the tool is started
    if start == 'config' and modules:
        conf = os.path.join(os.path.dirname(output), 'mpilens.conf')
        with open(conf, 'w') as f:  # a+b: one line each; trace:convert=after: its argument
            for m in modules.split('+'):
                f.write('module %s\n' % ' '.join(m.split(':')))
        env['LD_PRELOAD'] = os.path.join(build, 'lib', 'libmpilens.so')
        env['MPILENS_CONF'] = conf
    elif start == 'linked':
        env.pop('LD_PRELOAD', None)
        cmd = [c + '_linked' if c.endswith('/module_overhead') else c for c in cmd]
    elif start == 'run' and modules:
        # --no-record: the modules measured, without the summary a run adds for its record
        cmd = [os.path.join(build, 'bin', 'mpilens'), 'run', '--no-record', '-m',
               modules.replace('+', ','), '-o', output, '--'] + cmd
    return env, cmd


def instructions(build, modules, path, op, n, ompi_monitoring=False, start='preload', whole=False):
    """Instructions of N operations (after N to warm up); WHOLE: of the whole run."""
    output = tempfile.mkdtemp(prefix='mpilens-bench-')
    counted = [] if whole else ['--toggle-collect=counted_block']
    cmd = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null'] + counted + [
           os.path.join(build, 'bench', 'module_overhead'), '--only', path, str(op), str(n)]
    env, cmd = started(build, start, modules, os.path.join(output, 'run'), cmd)
    if ompi_monitoring:
        env['OMPI_MCA_pml_monitoring_enable'] = '1'
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    err = out.stderr + out.stdout
    shutil.rmtree(output, ignore_errors=True)
    collected = [l for l in err.splitlines() if 'Collected' in l]
    if not collected:
        sys.exit('module_overhead.py: callgrind run failed (%s, modules %r, %d operations):\n%s' %
                 (path, modules, n, err[-2000:]))
    return int(collected[0].split(':')[-1])


def per_op(build, modules, path, op, ompi_monitoring=False, n=20000, start='preload'):
    """Instructions per operation: N operations counted after N to warm up. A module that
    converts its trace at MPI_Finalize does part of each operation's work there: its figure
    is the difference of whole runs with 2N and N operations (Open MPI's progress engine
    polls its event loop by the clock in start-up and MPI_Finalize: such a count can move by
    a few per operation). With --trials T, the smallest of T runs (a run can only count more
    than its operations cost)."""
    n = getattr(per_op, 'n', n)
    trials = getattr(per_op, 'trials', 1)
    whole = 'convert=finalize' in modules
    count = lambda ops: min(instructions(build, modules, path, op, ops, ompi_monitoring, start, whole)
                            for _ in range(trials))
    return (count(2 * n) - count(n)) / (2 * n) if whole else count(n) / n  # N warm + N counted


def callgrind_report(build, modules):
    """Instructions per operation through each configuration, what it adds to the library,
    the ratio to the library alone, and for a stack (a+b) the sum of what its modules add
    alone (measured too when not asked for)."""
    names = ('self 0 B', 'self 1 KiB', 'allreduce', 'alltoall')
    print('%-22s %-11s %12s %9s %7s %10s' % ('configuration', 'operation', 'instructions', 'added',
                                             'ratio', 'sum alone'))
    for op, name in enumerate(names):
        lib = per_op(build, '', 'lib', op)
        added = {}

        def added_by(m):
            if m not in added:
                added[m] = per_op(build, m, 'stack', op) - lib
            return added[m]
        print('%-22s %-11s %12.1f %9s %7s %10s' % ('no tool', name, lib, '-', '1.000', '-'))
        for m in modules:
            parts = m.split('+')
            alone = '%10.1f' % sum(added_by(p) for p in parts) if len(parts) > 1 else '%10s' % '-'
            print('%-22s %-11s %12.1f %9.1f %7.3f %s' % (m, name, lib + added_by(m), added_by(m),
                                                        (lib + added_by(m)) / lib, alone))
        ompi = per_op(build, '', 'lib', op, ompi_monitoring=True)
        print('%-22s %-11s %12.1f %9.1f %7.3f %10s' % ('Open MPI monitoring', name, ompi, ompi - lib,
                                                       ompi / lib, '-'))
    print('(callgrind, 1 rank; a message to itself is Isend + Recv + Wait; %s)' % cpu_name())


def starts_report(build, modules):
    """Instructions added per 0-byte message and per Allreduce by each of MODULES, for each
    way of starting the tool (STARTS), over the library's own PMPI_ path of the same run."""
    lib = {op: per_op(build, '', 'lib', op) for op in (0, 2)}
    print('%-28s %-8s %9s %10s' % ('configuration', 'started', 'message', 'Allreduce'))
    for m in modules:
        for start in STARTS:
            added = [per_op(build, m, 'stack', op, start=start) - lib[op] for op in (0, 2)]
            print('%-28s %-8s %9.1f %10.1f' % (m, start, added[0], added[1]))
    print('(callgrind, 1 rank, instructions added over the library per operation; preload: '
          'LD_PRELOAD + MPILENS_MODULES, config: LD_PRELOAD + MPILENS_CONF, linked: -lmpilens, '
          'run: mpilens run; %s)' % cpu_name())


def trace_clock():
    """Which clock the trace reads on this machine, and the kernel's clocksource."""
    flags = set()
    try:
        with open('/proc/cpuinfo') as f:
            flags = set(next(l for l in f if l.startswith('flags')).split(':', 1)[1].split())
    except (OSError, StopIteration):
        pass
    try:
        with open('/sys/devices/system/clocksource/clocksource0/current_clocksource') as f:
            source = f.read().strip()
    except OSError:
        source = 'unknown'
    # the kernel sets both from CPUID 0x80000007 EDX bit 8, which the trace reads itself
    invariant = {'constant_tsc', 'nonstop_tsc'} <= flags
    return ('%s; kernel clocksource %s' %
            ('the time-stamp counter (invariant)' if invariant else 'clock_gettime (no invariant TSC)',
             source))


def check_limits(build, spec):
    """Each MODULE:MSG:ALLREDUCE of SPEC against the instructions it adds; 0, or 1 if any is
    past its limit. The runs go as many at a time as the machine has cores: callgrind's
    counts do not depend on what else runs."""
    items = [item.rsplit(':', 2) for item in spec.split(',')]  # MODULE may have arguments
    jobs = [('', 'lib', op) for op in (0, 2)] + [(m, 'stack', op) for m, _, _ in items for op in (0, 2)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        counts = dict(zip(jobs, pool.map(lambda j: per_op(build, j[0], j[1], j[2]), jobs)))
    bad = 0
    print('%-28s %-10s %9s %7s' % ('module', 'operation', 'added', 'limit'))
    for module, msg, allreduce in items:
        for op, name, limit in ((0, 'message', float(msg)), (2, 'Allreduce', float(allreduce))):
            # to the tenth printed: a run's one-off instructions (59 with any module in the
            # stack, over the N counted operations) are not a cost per operation
            added = round(counts[(module, 'stack', op)] - counts[('', 'lib', op)], 1)
            over = added > limit
            bad |= over
            print('%-28s %-10s %9.1f %7.0f%s' % (module, name, added, limit,
                                                  '  PAST THE LIMIT' if over else ''))
    print('(callgrind, 1 rank, instructions added over the library per operation; '
          'a message is Isend + Recv + Wait to itself; %s)' % cpu_name())
    print('(the trace reads %s; MODULE@monotonic: forced to clock_gettime)' % trace_clock())
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build', nargs='?', default='build')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--np', type=int, default=2)
    ap.add_argument('--modules', default='profile')
    ap.add_argument('--callgrind', action='store_true', help='count instructions instead of time')
    ap.add_argument('--n', type=int, default=20000, help='operations per callgrind run (and twice that)')
    ap.add_argument('--trials', type=int, default=1, help='callgrind: the smallest of T differences')
    ap.add_argument('--check', help='MODULE:MSG:ALLREDUCE,... limits of instructions added')
    ap.add_argument('--starts', action='store_true',
                    help='callgrind: each module started the four ways (preload, config, linked, run)')
    args = ap.parse_args()
    per_op.n = args.n
    per_op.trials = args.trials
    if args.check:
        raise SystemExit(check_limits(args.build, args.check))
    if args.starts:
        starts_report(args.build, args.modules.split(','))
        return
    if args.callgrind:
        callgrind_report(args.build, args.modules.split(','))
        return
    configs = [('no tool', '', '')] + [(m, m, '') for m in args.modules.split(',')]
    configs.append(('Open MPI monitoring', '', '--mca pml_monitoring_enable 1'))
    res = {c[0]: [] for c in configs}
    for _ in range(args.rounds):
        for name, modules, extra in configs:
            res[name].append(run(args.build, args.np, modules, extra, ['4000', '9']))
    base_lib = {op: statistics.median(r[op + '_lib_ns'] for r in res['no tool']) for op in OPS}
    print('%-20s %-11s %10s %10s %9s %7s' % ('configuration', 'operation', 'stack ns', 'lib ns',
                                             'added ns', 'ratio'))
    for name, _, extra in configs:
        for op in OPS:
            med = lambda k: statistics.median(r[op + k] for r in res[name])
            if extra:  # inside the library: compare with the tool-less run
                print('%-20s %-11s %10.1f %10.1f %9.1f %7.3f' % (
                    name, op, med('_lib_ns'), base_lib[op], med('_lib_ns') - base_lib[op],
                    med('_lib_ns') / base_lib[op]))
            else:
                print('%-20s %-11s %10.1f %10.1f %9.1f %7.3f' % (
                    name, op, med('_stack_ns'), med('_lib_ns'), med('_added_ns'),
                    med('_stack_ns') / med('_lib_ns')))
    print('(%d ranks; medians of %d rounds x 9 alternating blocks; %s)' % (args.np, args.rounds,
                                                                       cpu_name()))
    for name, modules, extra in configs[:2]:
        times = [run(args.build, 8, modules, extra, ['--finalize', '100'])['finalize_ms']
                 for _ in range(args.rounds)]
        print('MPI_Finalize, 8 ranks x 100 communicators x 5 operations, %s: %.1f ms' % (
            name, statistics.median(times)))


if __name__ == '__main__':
    main()
