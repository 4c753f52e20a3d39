# SPDX-License-Identifier: BSD-3-Clause
"""run.py: one run's database as DataFrames (docs/database.md is the schema read here):
metadata, ranks, communicators, the profile and call sites (module profile), the matrix
and histograms (module monitor), wait states (mpilens analyze); the trace and plots are in
trace.py and plots.py. Every property reads once, on first use.
"""
import functools
import os
import sqlite3

import pandas as pd

from .errors import MpilensError

#: The newest database schema this package reads (metadata "Schema version").
SCHEMA_VERSION = 2

_KINDS = ("p2p", "coll", "rma")


def _unit(value):
    """A POP ratio within [0, 1], as src/pop/pop_bounds.c brings it (docs/efficiency.md)."""
    return min(max(float(value), 0.0), 1.0)


def _replay_within(serialization, transfer):
    """The replay's pair within bounds (src/pop/pop_bounds.c): an ideal run longer than the
    real one is taken as long as it (transfer 1, serialization x transfer)."""
    if transfer > 1:
        serialization, transfer = serialization * transfer, 1.0
    return _unit(serialization), _unit(transfer)

class Run:
    """One mpilens run; see mpilens.open."""

    def __init__(self, path):
        path = os.fspath(path)
        self.directory = path if os.path.isdir(path) else os.path.dirname(path) or "."
        self.database = os.path.join(path, "mpilens.db") if os.path.isdir(path) else path
        self._db, self._keys = None, {}
        if not os.path.exists(self.database):
            if os.path.exists(os.path.join(self.directory, "trace", "traces.otf2")):
                return  # traced only (-m trace): events() and messages() read the trace
            raise MpilensError(self.database, "no such run database; give a run directory "
                               "or its mpilens.db (mpilens run prints where it is)")
        try:
            self._db = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)
            keys = dict(self._db.execute("SELECT key, value FROM metadata").fetchall())
        except sqlite3.Error as e:
            raise MpilensError(self.database, f"not a readable mpilens run database ({e})")
        version = int(keys.get("Schema version", "1") or 1)
        if version > SCHEMA_VERSION:
            raise MpilensError(self.database, f"schema version {version} is newer than this "
                               f"package reads ({SCHEMA_VERSION}); use the mpilens that "
                               "wrote it")
        self._keys = keys

    def __repr__(self):
        return f"<mpilens.Run {self.database}>"

    # ---- reading ----

    def _frame(self, sql, params=()):
        if self._db is None:
            raise MpilensError(self.database, "missing: this run was traced only; run with "
                               "-m profile or -m monitor for its tables")
        try:
            return pd.read_sql_query(sql, self._db, params=params)
        except (sqlite3.Error, pd.errors.DatabaseError) as e:
            raise MpilensError(self.database, f"cannot be read (damaged?): {e}")

    def _detail(self, sql, what):
        """SQL's rows over every rank: from this database, or from each shard of the
        per-rank detail (metadata "Profile detail", docs/scaling.md) with the run's
        communicator names (a shard knows a communicator whose root it does not hold by its
        identity only); `names` in SQL is the communicators table to take names from."""
        mode = self._keys.get("Profile detail", "ranks")
        if mode == "summary":
            raise MpilensError(self.database, f"kept {what} reduced over ranks only "
                               "(profile:detail=summary): read profile_summary, or rerun "
                               "with -m profile:detail=shards")
        if mode != "shards":
            return self._frame(sql.replace("{name}", "c.name").replace("{names}", ""))
        folder = os.path.join(self.directory, "profile-detail")
        shards = sorted(f for f in os.listdir(folder) if f.endswith(".db")) \
            if os.path.isdir(folder) else []
        if not shards:
            raise MpilensError(folder, "missing: the per-rank detail of this run; "
                               "`mpilens recover` rewrites it while the run's snapshots remain")
        named = sql.replace("{name}", "COALESCE(r.name, c.name)").replace(
            "{names}", " LEFT JOIN run.communicators r ON r.root = c.root AND"
            " r.ordinal = c.ordinal AND r.members_hash = c.members_hash")
        frames = []
        for shard in shards:
            path = os.path.join(folder, shard)
            try:
                db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                db.execute("ATTACH DATABASE ? AS run", (f"file:{self.database}?mode=ro",))
                frames.append(pd.read_sql_query(named, db))
                db.close()
            except (sqlite3.Error, pd.errors.DatabaseError) as e:
                raise MpilensError(path, f"cannot be read (damaged?): {e}")
        return pd.concat(frames, ignore_index=True)

    def _has(self, table):
        if self._db is None:
            return False
        try:
            return self._db.execute("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND "
                                    "name = ?", (table,)).fetchone() is not None
        except sqlite3.Error as e:
            raise MpilensError(self.database, f"cannot be read (damaged?): {e}")

    def _need(self, table, module):
        if not self._has(table):
            raise MpilensError(self.database, f"has no table {table}; run with the {module}")

    # ---- what the run is ----

    @functools.cached_property
    def metadata(self):
        """dict: every metadata key, plus library, processes, command, complete, why."""
        m = dict(self._keys)
        m["library"] = m.get("MPI Library")
        m["processes"] = int(m["Processes"]) if m.get("Processes") else None
        m["command"] = m.get("Run command")
        m["complete"] = "Incomplete" not in m
        m["why"] = m.get("Incomplete")
        return m

    @functools.cached_property
    def ranks(self):
        """rank, host, net_time (MPI_Init to MPI_Finalize, s), mpi_time (s)."""
        self._need("ranks", "profile module")
        return self._frame("SELECT rank, host, net_time, mpi_time FROM ranks ORDER BY rank")

    @functools.cached_property
    def efficiency(self):
        """The POP metrics of the run (docs/efficiency.md) as rows of phase ("run"), metric
        (parallel_efficiency, load_balance, communication_efficiency; with a trace analyzed,
        serialization_efficiency and transfer_efficiency; mpi_share) and value; with a trace analyzed,
        the first three again for each MPI_Pcontrol phase (phase: its name). A rank's useful time is
        its time between MPI_Init and MPI_Finalize outside MPI calls."""
        self._need("ranks", "profile module")
        has_startup = "startup_time" in set(self._frame("PRAGMA table_info(ranks)")["name"])
        frame = self._frame("SELECT net_time, mpi_time, %s AS startup FROM ranks"
                            % ("COALESCE(startup_time, 0)" if has_startup else "0"))
        useful = (frame["net_time"] - frame["mpi_time"]).clip(lower=0)
        run = (frame["net_time"] - frame["startup"]).max()
        largest = useful.max()
        balance = _unit(useful.mean() / largest if largest > 0 else 1.0)
        communication = _unit(largest / run if run > 0 else 0.0)
        rows = [("run", "parallel_efficiency", balance * communication),
                ("run", "load_balance", balance),
                ("run", "communication_efficiency", communication)]
        # the MPI share, as src/pop/pop_run.c defines it: the ranks' MPI time (MPI_Init and
        # MPI_Finalize outside) over ranks x the run's length
        mpi = (frame["mpi_time"] - frame["startup"]).clip(lower=0).sum()
        share = _unit(mpi / (len(frame) * run)) if run > 0 and len(frame) else 0.0
        analyzed = self._frame("SELECT key, value FROM metadata WHERE key IN "
                               "('Serialization efficiency', 'Transfer efficiency')")
        replay = {key: float(value) for key, value in analyzed.itertuples(index=False)}
        if len(replay) == 2:  # mpilens analyze's replay, within bounds as the report has it
            ser, te = _replay_within(replay["Serialization efficiency"],
                                     replay["Transfer efficiency"])
            rows += [("run", "serialization_efficiency", ser), ("run", "transfer_efficiency", te)]
        rows.append(("run", "mpi_share", share))
        if self._has("phase_times"):  # per MPI_Pcontrol phase, from mpilens analyze
            phases = self._frame(
                "SELECT p.phase, p.seconds, p.computing, p.ideal, (SELECT COALESCE(SUM("
                "w.seconds), 0) FROM waits w WHERE w.pattern = 'MPI' AND w.phase = p.phase "
                "AND w.rank = p.rank) AS mpi FROM phase_times p ORDER BY p.rowid")
            phases["useful"] = (phases["seconds"] - phases["mpi"]).clip(lower=0)
            for name, of in phases.groupby("phase", sort=False):
                most = of["useful"].max()
                length = of["seconds"].max()
                balance = _unit(of["useful"].mean() / most if most > 0 else 1.0)
                communication = _unit(most / length if length > 0 else 1.0)
                rows += [(name, "parallel_efficiency", balance * communication),
                         (name, "load_balance", balance),
                         (name, "communication_efficiency", communication)]
                ideal = of["ideal"].max()  # the phase on analyze's ideal network
                if ideal > 0 and length > 0:
                    ser, te = _replay_within(of["computing"].max() / ideal, ideal / length)
                    rows += [(name, "serialization_efficiency", ser),
                             (name, "transfer_efficiency", te)]
        return pd.DataFrame(rows, columns=["phase", "metric", "value"])

    @functools.cached_property
    def communicators(self):
        """id, name, size, creator, members (a list of world ranks)."""
        frame = self._frame("SELECT id, name, size, creator, members FROM communicators "
                            "ORDER BY id")
        frame["members"] = [[int(r) for r in str(m).split(",") if r != ""]
                            if m is not None else [] for m in frame["members"]]
        return frame

    # ---- module profile ----

    @functools.cached_property
    def profile(self):
        """One row per rank x communicator x operation x size bucket."""
        self._need("profile", "profile module (mpilens run -m profile)")
        frame = self._detail(
            "SELECT p.rank, {name} AS communicator, c.size, o.operation, o.kind, p.bucket,"
            " b.min AS bucket_min, b.max AS bucket_max, p.calls, p.time, p.max_time, p.volume"
            " FROM profile p JOIN communicators c ON c.id = p.comm_id{names}"
            " JOIN operations o ON o.id = p.operation_id JOIN buckets b ON b.bucket = p.bucket"
            " ORDER BY p.rank, communicator, o.id, p.bucket", "the profile")
        return frame.sort_values(["rank", "communicator"], kind="stable", ignore_index=True)

    @functools.cached_property
    def profile_summary(self):
        """The profile reduced over ranks, one row per communicator x operation x size
        bucket (written whatever the detail kept): ranks that called it, calls, volume, time
        summed, its mean and variance per rank, the smallest and largest per-rank time with
        the rank holding it, the longest single call."""
        self._need("profile_summary", "profile module (mpilens run -m profile)")
        return self._frame(
            "SELECT c.name AS communicator, c.size, o.operation, o.kind, s.bucket,"
            " b.min AS bucket_min, b.max AS bucket_max, s.ranks, s.calls, s.volume, s.time,"
            " s.time_mean, s.time_var, s.time_min, s.time_min_rank, s.time_max,"
            " s.time_max_rank, s.max_time"
            " FROM profile_summary s JOIN communicators c ON c.id = s.comm_id"
            " JOIN operations o ON o.id = s.operation_id JOIN buckets b ON b.bucket = s.bucket"
            " ORDER BY c.name, o.id, s.bucket")

    @functools.cached_property
    def callsites(self):
        """One row per rank x call site x operation: function, file, line, calls, time..."""
        self._need("callsites", "profile module")
        frame = self._detail(
            "SELECT cp.rank, s.function, s.file, s.line, s.object, s.offset, o.operation,"
            " cp.calls, cp.time, cp.max_time, cp.min_time, cp.volume"
            " FROM callsite_profile cp JOIN callsites s ON s.id = cp.callsite_id"
            " JOIN operations o ON o.id = cp.operation_id ORDER BY cp.rank, s.id, o.id",
            "the call sites")
        return frame.sort_values("rank", kind="stable", ignore_index=True)

    # ---- module monitor ----

    def matrix(self, kind="p2p", phase=None, value="bytes"):
        """The square matrix (sender rank x receiver rank) of KIND (p2p, coll, rma or all),
        summed over the phases or of PHASE, counting VALUE (bytes or messages)."""
        self._need("monitor_matrix", "monitor module (mpilens run -m monitor)")
        if kind not in _KINDS + ("all",):
            raise ValueError(f"kind {kind!r}: use p2p, coll, rma or all")
        if value not in ("bytes", "messages"):
            raise ValueError(f"value {value!r}: use bytes or messages")
        kinds = _KINDS if kind == "all" else (kind,)
        # monitor_cells spreads the uniform collectives (kept per communicator and rank)
        # over the peers; databases written before it have everything in monitor_matrix
        cells_of = "monitor_cells" if self._has("monitor_cells") else "monitor_matrix"
        sql = (f"SELECT m.src, m.dst, SUM(m.{value}) AS v FROM {cells_of} m"
               " LEFT JOIN monitor_phases p ON p.id = m.phase_id"
               f" WHERE m.kind IN ({','.join('?' * len(kinds))})"
               " AND (? IS NULL OR p.name = ?) GROUP BY m.src, m.dst")
        cells = self._frame(sql, (*kinds, phase, phase))
        n = self.metadata["processes"] or 0
        if len(cells):
            n = max(n, int(cells[["src", "dst"]].to_numpy().max()) + 1)
        square = pd.DataFrame(0, index=pd.RangeIndex(n, name="sender"),
                              columns=pd.RangeIndex(n, name="receiver"), dtype="int64")
        for src, dst, v in cells.itertuples(index=False):
            square.iat[int(src), int(dst)] = int(v)
        return square

    @functools.cached_property
    def histograms(self):
        """phase, src, dst, bin, bin_min, bin_max (bytes), messages: point-to-point sizes."""
        self._need("monitor_histogram", "monitor module")
        frame = self._frame(
            "SELECT p.name AS phase, h.src, h.dst, h.bin, h.messages FROM monitor_histogram h"
            " LEFT JOIN monitor_phases p ON p.id = h.phase_id ORDER BY h.phase_id, h.src,"
            " h.dst, h.bin")
        frame.insert(4, "bin_min", [0 if b == 0 else 1 << (b - 1) for b in frame["bin"]])
        frame.insert(5, "bin_max", [0 if b == 0 else (1 << b) - 1 for b in frame["bin"]])
        return frame

    # ---- mpilens analyze ----

    @functools.cached_property
    def waits(self):
        """pattern, region, rank, seconds, phase: the wait states of `mpilens analyze`."""
        self._need("waits", "trace module, then mpilens analyze RUN")
        return self._frame("SELECT pattern, region, rank, seconds, phase FROM waits "
                           "ORDER BY pattern, region, rank")

    # ---- the trace (trace.py) and pictures (plots.py) ----

    def events(self, ranks=None, start=None, end=None):
        """One row per trace event of RANKS (default all) from START to END (seconds since
        the trace's start): rank, thread, time, event, region, peer, communicator, tag,
        bytes."""
        from .trace import read_events
        return read_events(self, ranks, start, end)

    def messages(self, ranks=None, start=None, end=None):
        """Each point-to-point message, its send matched to its receive: src, dst,
        communicator, tag, bytes, send_time, recv_time, latency (seconds)."""
        from .trace import match_messages
        return match_messages(self.events(ranks, start, end))

    def plot_matrix(self, kind="p2p", value="bytes", phase=None):
        from .plots import plot_matrix
        return plot_matrix(self, kind, value, phase)

    def plot_profile(self, top=15):
        from .plots import plot_profile
        return plot_profile(self, top)

    def plot_efficiency(self):
        from .plots import plot_efficiency
        return plot_efficiency(self)

    def plot_timeline(self, ranks=None, start=None, end=None):
        from .plots import plot_timeline
        return plot_timeline(self, ranks, start, end)
