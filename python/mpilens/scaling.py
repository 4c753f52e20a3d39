# SPDX-License-Identifier: BSD-3-Clause
"""scaling.py: the POP scaling table of runs at several rank counts (docs/efficiency.md,
"Across runs") as a DataFrame, read through `mpilens scaling --csv` (src/pop computes it:
this module parses its answer, never the runs' files).

    t = mpilens.scaling(["sweep/ranks-1", "sweep/ranks-2", "sweep/ranks-4"])
    t.loc["parallel_efficiency"]            # one value per rank count
    mpilens.scaling(runs, weak=True, ref="sweep/ranks-2")
"""
import io
import subprocess

import pandas as pd

from .errors import MpilensError
from .site import _command


def scaling(runs, weak=False, ref=None, force=False, summary=False):
    """The table of RUNS (run directories): rows the metrics (speedup, global_efficiency,
    parallel_efficiency, load_balance, communication_efficiency, serialization_efficiency
    and transfer_efficiency where analyzed, computation_scalability), one column per rank
    count. Raises MpilensError with mpilens's own message when the runs cannot be compared
    (different programs without force, no profile, two runs at one rank count)."""
    if isinstance(runs, str):
        runs = [runs]
    args = [_command(), "scaling", *[str(r) for r in runs], "--csv"]
    if weak:
        args.append("--weak")
    if force:
        args.append("--force")
    if summary:
        args.append("--summary")
    if ref is not None:
        args += ["--ref", str(ref)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise MpilensError(done.stderr.strip() or "mpilens scaling failed")
    rows = pd.read_csv(io.StringIO(done.stdout))
    table = rows.pivot(index="metric", columns="ranks", values="value")
    order = [m for m in rows["metric"].drop_duplicates()]
    return table.reindex(order)
