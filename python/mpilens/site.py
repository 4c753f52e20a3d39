# SPDX-License-Identifier: BSD-3-Clause
"""site.py: the site store (docs/site.md) as pandas DataFrames, read through `mpilens site`
(src/site owns the store's format: this module reads its CSV answers, never its tables).

    s = mpilens.site("site.db")            # or "postgresql:///site?host=/run/postgresql"
    s.jobs(user="alice", since="2026-11-01")
    s.usage()                               # section, item, value, share
"""
import io
import os
import shutil
import subprocess

import pandas as pd

from .errors import MpilensError


def _command():
    """The mpilens command: $MPILENS_CLI, else the one on PATH."""
    found = os.environ.get("MPILENS_CLI") or shutil.which("mpilens")
    if not found:
        raise MpilensError("mpilens: site: the mpilens command is not on PATH; set MPILENS_CLI")
    return found


class Site:
    """A site store: SQLite file or PostgreSQL URI. Each question is one `mpilens site`
    run; on PostgreSQL it reads as the user running Python (their own jobs, or staff's)."""

    def __init__(self, store):
        self.store = store

    def _ask(self, verb, **filters):
        args = [_command(), "site", verb, "--store", self.store, "--csv"]
        for key, value in filters.items():
            if value is not None:
                args += ["--" + key.replace("_", "-"), str(value)]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise MpilensError(done.stderr.strip() or f"mpilens site {verb} failed")
        return pd.read_csv(io.StringIO(done.stdout), dtype={"job": str, "step": str})

    def jobs(self, user=None, account=None, app=None, since=None, until=None, sort=None):
        """Every job the filters match (columns as `mpilens site jobs --csv`)."""
        return self._ask("jobs", user=user, account=account, app=app, since=since,
                         until=until, sort=sort)

    def apps(self, user=None, account=None, app=None, since=None, until=None):
        """Per application (columns as `mpilens site apps --csv`)."""
        return self._ask("apps", user=user, account=account, app=app, since=since,
                         until=until)

    def usage(self, user=None, account=None, app=None, since=None, until=None):
        """The site's MPI usage: rows section, item, value, share."""
        return self._ask("usage", user=user, account=account, app=app, since=since,
                         until=until)
