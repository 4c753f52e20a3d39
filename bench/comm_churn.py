#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""comm_churn.py: what the modules add to communicator creation and release.

Runs build/bench/comm_churn (2 ranks) for each kind of creation (dup, split with
MPI_UNDEFINED on some ranks every other round, create_group, idup, cart) and each number of
rounds, without any tool and under each module alone and stacked, and prints per row the
loop time, its ratio to the run without tools in the same round of runs, and the peak RSS
difference (the largest rank's). The configurations are interleaved, and the median of
--repeat runs is kept.

Usage: bench/comm_churn.py [BUILD_DIR] [--rounds 1000,10000,100000] [--kinds dup,split,...]
                           [--np 2] [--repeat 3]
"""
import argparse
import os
import re
import shlex
import statistics
import subprocess

MPIRUN = 'mpirun --allow-run-as-root --oversubscribe'
CONFIGS = ('', 'profile', 'monitor', 'trace', 'profile,monitor,trace')


def run(build, np, modules, kind, rounds):
    env = dict(os.environ, MPILENS_OUTPUT='/tmp/mpilens-bench-churn')
    env.pop('MPILENS_MODULES', None)
    if modules:
        env['LD_PRELOAD'] = os.path.join(build, 'lib', 'libmpilens.so')
        env['MPILENS_MODULES'] = modules
    cmd = shlex.split(MPIRUN) + ['-np', str(np), os.path.join(build, 'bench', 'comm_churn'),
                                 kind, str(rounds)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    m = re.search(r'seconds=([0-9.]+) rss_kb=([0-9]+)', out)
    return float(m.group(1)), int(m.group(2))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('build', nargs='?', default='build')
    p.add_argument('--rounds', default='1000,10000,100000')
    p.add_argument('--kinds', default='dup,split,create_group,idup,cart')
    p.add_argument('--np', type=int, default=2)
    p.add_argument('--repeat', type=int, default=3)
    a = p.parse_args()
    print('%-13s %7s %-22s %9s %7s %9s' % ('kind', 'rounds', 'tools', 'seconds', 'ratio',
                                          'RSS +KB'))
    for kind in a.kinds.split(','):
        for rounds in (int(r) for r in a.rounds.split(',')):
            times = {c: [] for c in CONFIGS}
            rss = {c: [] for c in CONFIGS}
            for _ in range(a.repeat):
                for c in CONFIGS:
                    t, r = run(a.build, a.np, c, kind, rounds)
                    times[c].append(t)
                    rss[c].append(r)
            base_t, base_r = statistics.median(times['']), statistics.median(rss[''])
            for c in CONFIGS:
                t, r = statistics.median(times[c]), statistics.median(rss[c])
                print('%-13s %7d %-22s %9.4f %7.2f %9d' % (kind, rounds, c or 'none', t,
                                                           t / base_t if base_t else 0,
                                                           r - base_r))
    print('(ratio: loop time against the run without tools; RSS: peak of the largest rank)')


if __name__ == '__main__':
    main()
