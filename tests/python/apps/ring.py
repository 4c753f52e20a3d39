# ring.py: the mpi4py ring of issue 58 (tests/python/test_runtime_mpi.sh): 10 rounds of
# Isend/Recv/Wait of 128 doubles (1 KiB) to the right neighbour, a pickled sendrecv, Split,
# a pickled allreduce. Line numbers are checked by the test: keep them.
from mpi4py import MPI
import numpy as np, os
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
out = np.full(128, rank, dtype='d'); got = np.empty(128, dtype='d')
for i in range(10):
    req = comm.Isend(out, dest=right, tag=i)
    comm.Recv(got, source=left, tag=i)
    req.Wait()
assert (got == left).all()
obj = comm.sendrecv({'rank': rank}, dest=right, source=left)
half = comm.Split(rank % 2, rank)
total = comm.allreduce(rank)
os.write(1, f'{rank} {obj} {total} {half.Get_size()}\n'.encode())  # a line, one write
# SPDX-License-Identifier: BSD-3-Clause
