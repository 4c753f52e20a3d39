# threads.py: 4 Python threads each exchange 500 messages of 16 doubles (128 B) with the
# neighbours under MPI_THREAD_MULTIPLE (mpi4py's default): the call sites are read from
# each thread's own frames at once (tests/python/test_runtime_mpi.sh).
import os
import threading

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size


def worker(tag):
    out, got = np.zeros(16), np.zeros(16)
    for _ in range(500):
        comm.Sendrecv(out, right, tag, got, left, tag)


threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
os.write(1, f"threads ok {comm.rank}\n".encode())
# SPDX-License-Identifier: BSD-3-Clause
