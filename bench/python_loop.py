# SPDX-License-Identifier: BSD-3-Clause
# python_loop.py: the mpi4py calls bench/python_overhead.sh times (2 ranks): ITERATIONS of a
# ping-pong of 8 doubles (Send/Recv, buffers), of Allreduce on 1 double, and of the pickled
# sendrecv (lower-case API). Rank 0 prints `OPERATION ns_per_call=N` for each.
import sys
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, n = comm.Get_rank(), int(sys.argv[1]) if len(sys.argv) > 1 else 20000
peer = 1 - rank
buf, one, out = np.zeros(8), np.ones(1), np.zeros(1)


def pingpong():
    if rank == 0:
        comm.Send(buf, peer)
        comm.Recv(buf, peer)
    else:
        comm.Recv(buf, peer)
        comm.Send(buf, peer)


def allreduce():
    comm.Allreduce(one, out)


def pickled():
    comm.sendrecv(rank, dest=peer, source=peer)


for name, body, calls in (("send+recv", pingpong, 2), ("Allreduce", allreduce, 1),
                          ("pickled sendrecv", pickled, 1)):
    for _ in range(n // 10):  # warm-up
        body()
    comm.Barrier()
    start = time.perf_counter()
    for _ in range(n):
        body()
    seconds = time.perf_counter() - start
    if rank == 0:
        print(f"{name} ns_per_call={seconds * 1e9 / n / calls:.0f}", flush=True)
