# SPDX-License-Identifier: BSD-3-Clause
"""cpu_name.py: the CPU's model name, which the benchmark scripts print with every table
(a figure holds for one CPU: Intel and AMD EPYC machines differ)."""


def cpu_name():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown CPU'
