#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""stack_overhead.py: what the mpilens stack costs per MPI call, by stack depth.

Runs build/bench/stack_overhead (2 ranks) under (a) no preload, (b) the core with no
module, (c) 1, 16 and 100 empty modules as they run by default (their wrappers only jump
to PMPI_X: left out of the dispatch, src/core/forwarders.c), (d) 1, 4, 8, 10, 16 and 100
empty modules kept as layers (MPILENS_EMPTY_LAYERS=keep: what a layer's step costs; issue
40: flat per layer up to 16), (e) 8 and 16 kept, every level through the core's one shared
step (MPILENS_LEVEL_STEPS=off), interleaving the configurations for several rounds, and
prints per configuration the medians of: MPI_Comm_rank ns/call through the stack, the
ns it adds over the library's own PMPI_Comm_rank measured in the same process, the same
for a 0-byte ping-pong (one way), the ratio stack/library, and the start-up time of the
core (resolving the library, loading the modules).

With --callgrind it counts instructions instead (valgrind, one rank, steady from run to
run): the instructions one MPI_Comm_rank call adds over the library's own, from the
difference of two runs with N and 2N calls.

Usage: bench/stack_overhead.py [BUILD_DIR] [--rounds N] [--mpirun "mpirun ..."] [--callgrind]
"""
import argparse
import glob
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile

from cpu_name import cpu_name

FIELDS = ('comm_rank_lib_ns', 'comm_rank_stack_ns', 'comm_rank_added_ns', 'pingpong_lib_ns',
          'pingpong_stack_ns', 'pingpong_added_ns', 'init_ms', 'boot_ms')


def tool_env(build, modules, preload, extra_env):
    """The environment of one run, and its output directory: a temporary one (by default
    the core makes one in the current directory), for the caller to remove."""
    env = dict(os.environ, **(extra_env or {}))
    env.pop('MPILENS_MODULES', None)
    output = tempfile.mkdtemp(prefix='mpilens-stack-')
    env['MPILENS_OUTPUT'] = os.path.join(output, 'run')
    if preload:
        env['LD_PRELOAD'] = os.path.join(build, 'lib', 'libmpilens.so')
    if modules:
        env['MPILENS_MODULES'] = ','.join(modules)
    return env, output


def run_once(build, mpirun, modules, preload, extra_env=None):
    env, output = tool_env(build, modules, preload, extra_env)
    cmd = shlex.split(mpirun) + ['-np', '2', os.path.join(build, 'bench', 'stack_overhead'),
                                 '200000', '20000', '9']
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600).stdout
    shutil.rmtree(output, ignore_errors=True)
    line = [l for l in out.splitlines() if l.startswith('modules=')][0]
    return {k: float(v) for k, v in (kv.split('=') for kv in line.split()) if k in FIELDS}


def callgrind_total(build, modules, preload, calls, extra_env=None):
    env, output = tool_env(build, modules, preload, extra_env)
    cmd = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null',
           os.path.join(build, 'bench', 'stack_overhead'), str(calls), '1', '1']
    err = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600).stderr
    shutil.rmtree(output, ignore_errors=True)
    line = [l for l in err.splitlines() if 'Collected' in l][0]
    return int(line.split(':')[-1])


def callgrind_report(build, configs):
    """Instructions per MPI_Comm_rank call: each run does 2 x calls of each loop."""
    calls = 50000
    per_call = {}
    for name, preload, modules, extra in configs:
        delta = (callgrind_total(build, modules, preload, 2 * calls, extra) -
                 callgrind_total(build, modules, preload, calls, extra))
        per_call[name] = delta / (2.0 * calls)  # library loop + stack loop, per call
    base = per_call[configs[0][0]]
    print('%-22s %14s %14s' % ('configuration', 'added instr', 'instr/layer'))
    for name, _, modules, _ in configs:
        added = per_call[name] - base
        print('%-22s %14.1f %14s' % (name, added, '%.1f' % (added / len(modules)) if modules else '-'))
    print('added instr: instructions one MPI_Comm_rank call through the stack adds over the '
          'library\'s own PMPI_Comm_rank (callgrind, 1 rank; %s)' % cpu_name())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build', nargs='?', default='build')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--mpirun', default='mpirun --allow-run-as-root --oversubscribe')
    ap.add_argument('--callgrind', action='store_true', help='count instructions instead of time')
    args = ap.parse_args()
    empties = sorted(glob.glob(os.path.join(args.build, 'tests', 'modules', 'stack', 'empty*.so')))
    # (d): layers kept, for what each step costs; (e): the same with every level passing the
    # core's one shared step (the design before levels.c)
    keep = {'MPILENS_EMPTY_LAYERS': 'keep'}
    shared = dict(keep, MPILENS_LEVEL_STEPS='off')
    configs = [('(a) no preload', False, [], None), ('(b) core, 0 modules', True, [], None)] + \
              [('(c) %d empty, left out' % n, True, empties[:n], None) for n in (1, 16, 100)] + \
              [('(d) %d kept as layers' % n, True, empties[:n], keep)
               for n in (1, 4, 8, 10, 16, 100)] + \
              [('(e) %d kept, shared step' % n, True, empties[:n], shared) for n in (8, 16)]
    if args.callgrind:
        callgrind_report(args.build, configs)
        return
    results = {name: [] for name, _, _, _ in configs}
    for _ in range(args.rounds):
        for name, preload, modules, extra in configs:
            results[name].append(run_once(args.build, args.mpirun, modules, preload, extra))
    print('%-22s %9s %9s %8s %8s %10s %10s %8s %8s' % (
        'configuration', 'rank ns', 'added ns', 'ns/layer', 'ratio', 'pingpong', 'added ns',
        'ratio', 'boot ms'))
    for name, _, modules, _ in configs:
        med = {k: statistics.median(r[k] for r in results[name]) for k in FIELDS}
        layers = len(modules)
        print('%-22s %9.2f %9.2f %8s %8.2f %10.1f %10.1f %8.2f %8.2f' % (
            name, med['comm_rank_stack_ns'], med['comm_rank_added_ns'],
            '%.2f' % (med['comm_rank_added_ns'] / layers) if layers else '-',
            med['comm_rank_stack_ns'] / med['comm_rank_lib_ns'], med['pingpong_stack_ns'],
            med['pingpong_added_ns'], med['pingpong_stack_ns'] / med['pingpong_lib_ns'],
            med['boot_ms']))
    print('rank/pingpong: through MPI_ (the stack); added: minus the library\'s own PMPI_ in the '
          'same process; ratio: stack / library; medians of %d rounds x 9 alternating blocks; %s'
          % (args.rounds, cpu_name()))


if __name__ == '__main__':
    main()
