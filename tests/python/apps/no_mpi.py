# no_mpi.py: a Python program that never loads MPI.
print("no MPI here", sum(range(10)))
# SPDX-License-Identifier: BSD-3-Clause
