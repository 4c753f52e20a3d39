# SPDX-License-Identifier: BSD-3-Clause
"""mpilens: a run of mpilens as pandas DataFrames (docs/python.md).

    import mpilens
    run = mpilens.open("RUN_DIR")          # or RUN_DIR/mpilens.db
    run.profile                             # rank x communicator x operation x bucket
    run.matrix("p2p")                       # square DataFrame, sender x receiver
    run.events(ranks=[0, 3], start=1.0, end=2.0)   # the OTF2 trace, one row per event
    mpilens.site("site.db").jobs()          # a site's jobs (docs/site.md)
    mpilens.scaling(["s/ranks-1", "s/ranks-2"])    # the POP scaling table (docs/efficiency.md)

Nothing is read until asked. Every failure to read a run raises mpilens.MpilensError,
naming the file. Reads the database through its documented schema (docs/database.md) and
the trace with Debian's python3-otf2.
"""
from .errors import MpilensError
from .run import Run, SCHEMA_VERSION
from .scaling import scaling
from .site import Site

__version__ = "0.1.0"
__all__ = ["open", "site", "scaling", "Run", "Site", "MpilensError", "SCHEMA_VERSION"]


def open(path):  # noqa: A001 (the package's one entry point, as the brief names it)
    """The run at PATH: a run directory (holding mpilens.db and, if traced, trace/) or its
    mpilens.db. Raises MpilensError when it is missing, not a run database, damaged, or
    written by a newer mpilens (its schema version above SCHEMA_VERSION)."""
    return Run(path)


def site(store):
    """The site store STORE (a SQLite file or a postgresql:// URI): its jobs, apps and
    usage as DataFrames, read through the `mpilens site` command."""
    return Site(store)
