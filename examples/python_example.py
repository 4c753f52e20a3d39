#!/usr/bin/python3
"""python_example.py: the worked example of docs/python.md. Which communicator spends the
most MPI time, and in which operation; the matrix as a picture.

    PYTHONPATH=python /usr/bin/python3 examples/python_example.py RUN_DIR [OUT_DIR]
"""
import sys

import mpilens

run = mpilens.open(sys.argv[1])
out = sys.argv[2] if len(sys.argv) > 2 else "."
print(f"{run.metadata['command']}: {run.metadata['processes']} ranks,",
      "complete" if run.metadata["complete"] else f"incomplete ({run.metadata['why']})")

profile = run.profile[~run.profile["operation"].isin(["Init", "Init_thread", "Finalize"])]
by_comm = profile.groupby(["communicator", "operation"])["time"].sum().sort_values()
(comm, op), seconds = by_comm.index[-1], by_comm.iloc[-1]
print(f"busiest communicator: {comm} ({op}, {seconds:.3f} s summed over ranks)")

matrix = run.matrix("p2p")
print("point-to-point bytes, sender x receiver:")
print(matrix.to_string())
run.plot_matrix().savefig(f"{out}/matrix.png")
print(f"the matrix as a picture: {out}/matrix.png")
# SPDX-License-Identifier: BSD-3-Clause
