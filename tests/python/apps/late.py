# late.py: a program that loads MPI only inside a function called late, after work
# without MPI (tests/python/test_runtime_mpi.sh).
import os


def work():
    return sum(i * 0.5 for i in range(100000))


def measure(x):
    from mpi4py import MPI
    return MPI.COMM_WORLD.allreduce(x)


os.write(1, f"late {work() > 0} {measure(1)}\n".encode())
# SPDX-License-Identifier: BSD-3-Clause
