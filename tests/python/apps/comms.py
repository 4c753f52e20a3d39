# comms.py: communicators made by Split, Dup and Create_cart, an Allreduce in each, and a
# Waitall of an Isend/Irecv pair on MPI_COMM_WORLD; tests/apps/comms_twin.c is the same
# program in C (tests/python/test_runtime_mpi.sh: their profiles are identical).
from mpi4py import MPI
import numpy as np
world = MPI.COMM_WORLD
half = world.Split(world.rank % 2, world.rank)
dup = world.Dup()
cart = world.Create_cart([2, 2], periods=[True, True])
for comm in (half, dup, cart):
    comm.Allreduce(MPI.IN_PLACE, np.zeros(4))
pair = [world.Isend(np.zeros(8), (world.rank + 1) % 4), world.Irecv(np.zeros(8), (world.rank - 1) % 4)]
MPI.Request.Waitall(pair)
# SPDX-License-Identifier: BSD-3-Clause
