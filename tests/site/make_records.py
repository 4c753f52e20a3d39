"""make_records.py DIR N [--ops SPEC] [--user U --uid N] [--app A] [--pe V,V,...]
[--start EPOCH --hours H]: N synthetic summary.json records (docs/summary.md, version 1) in
DIR, for the site store's tests and benchmark: job ids 1000.., one step each, H hours apart
(1) from EPOCH (1.7e9), program /apps/app(i mod 5) (or A), parallel efficiency from the
list (cycled; else 0.5-0.86 by i), ranks 2^(i mod 8), each with the operations of SPEC
("MPI_Allreduce=30,MPI_Send=10;MPI_Allreduce=10,MPI_Wait=20": one job's per ';', cycled;
seconds summed over ranks) and 4 messages of 1 KiB within a host. The MPI time is the sum
of the operations, so the shares of `mpilens site usage` follow from SPEC exactly."""
import json
import os
import sys


def main():
    args = sys.argv[1:]
    out, count = args[0], int(args[1])
    opt = dict(zip(args[2::2], args[3::2]))
    spec = opt.get("--ops", "MPI_Allreduce=30,MPI_Send=10")
    user = opt.get("--user", "root")
    uid = int(opt.get("--uid", "0"))
    app = opt.get("--app")
    pes = [float(v) for v in opt["--pe"].split(",")] if "--pe" in opt else None
    start0 = float(opt.get("--start", "1.7e9"))
    hours = float(opt.get("--hours", "1"))
    jobs = [[(o.split("=")[0], float(o.split("=")[1])) for o in j.split(",")] for j in spec.split(";")]
    for i in range(count):
        ops = jobs[i % len(jobs)]
        ranks = 2 ** (i % 8)
        mpi = sum(s for _, s in ops)
        run = 100.0
        rec = {
            "schema": "mpilens-summary", "version": 1,
            "job": {"id": 1000 + i, "step": 0, "name": "synthetic", "user": user, "uid": uid,
                    "account": "acct%d" % (i % 3), "partition": "batch", "cluster": "test"},
            "program": {"path": "/apps/" + (app or "app%d" % (i % 5)), "build_id": None, "python_script": None},
            "mpi": {"library": "Open MPI v4.1.4", "standard": "3.1"},
            "ranks": ranks, "ranks_measured": ranks, "nodes": max(1, ranks // 4),
            "ranks_per_node": {"min": min(ranks, 4), "max": min(ranks, 4)},
            "first_host": "node1", "start": "", "end": "",
            "start_epoch": start0 + 3600.0 * hours * i,
            "end_epoch": start0 + 3600.0 * hours * i + run,
            "run_seconds": run, "clock": "tsc", "mpi_seconds": mpi,
            "mpi_share": mpi / (ranks * run),
            "efficiency": {"load_balance": 0.9, "communication_efficiency": 0.8,
                           "parallel_efficiency": pes[i % len(pes)] if pes
                           else 0.5 + 0.4 * ((i * 7) % 10) / 10},
            "top_operations": [{"operation": o, "communicator": "MPI_COMM_WORLD",
                                "communicator_size": ranks, "calls": 10, "seconds": s}
                               for o, s in ops],
            "operations": {o: {"calls": 10, "seconds": s} for o, s in ops},
            "other_operations_seconds": 0, "top_call_sites": [],
            "point_to_point": {"messages": 4, "bytes": 4096,
                               "within_hosts": {"messages": 4, "bytes": 4096},
                               "between_hosts": {"messages": 0, "bytes": 0}},
            "message_sizes": [{"min_bytes": 1024, "max_bytes": 2047, "messages": 4}],
            "call_sites_unsampled_seconds": 0, "operation_rows_dropped": 0,
            "ended": "MPI_Finalize"}
        with open(os.path.join(out, "synthetic.%d.summary.json" % i), "w") as f:
            json.dump(rec, f)


main()
# SPDX-License-Identifier: BSD-3-Clause
