# SPDX-License-Identifier: BSD-3-Clause
"""trace.py: a run's OTF2 trace (DIR/trace/traces.otf2, module trace) as a DataFrame, read
with Debian's python3-otf2, only the ranks asked for and only up to the end of the time
window asked for (the events come merged in time order, so reading stops there); and the
point-to-point messages matched send to receive, in order per (sender, receiver,
communicator, tag), as MPI delivers them.
"""
import os
from collections import defaultdict, deque

import pandas as pd

from .errors import MpilensError

_COLUMNS = ["rank", "thread", "time", "event", "region", "peer", "communicator", "tag",
            "bytes"]
_SENDS = ("MpiSend", "MpiIsend")
_RECEIVES = ("MpiRecv", "MpiIrecv")


def _open(run):
    path = os.path.join(run.directory, "trace", "traces.otf2")
    if not os.path.exists(path):
        if os.path.exists(os.path.join(run.directory, "trace", "CONVERT-PENDING")):
            raise MpilensError(path, "not written yet: the run's event logs wait for their "
                               f"conversion (a run without mpilens run); mpilens recover "
                               f"{run.directory} writes it")
        raise MpilensError(path, "no trace; run with the trace module (mpilens run -m trace)")
    try:
        import otf2
        return path, otf2.reader.open(path)
    except ImportError as e:
        raise MpilensError(path, f"python3-otf2 is needed to read it ({e}); apt-get install "
                           "python3-otf2")
    except Exception as e:  # OTF2's own errors name no file
        raise MpilensError(path, f"cannot be read (damaged?): {e}")


def _places(defs):
    """Each location's (rank, thread): its group's position, its place in the group."""
    groups = {g: i for i, g in enumerate(defs.location_groups)}
    seen = defaultdict(int)
    places = {}
    for loc in defs.locations:
        rank = groups.get(loc.group, 0)
        places[loc] = (rank, seen[rank])
        seen[rank] += 1
    return places


def read_events(run, ranks=None, start=None, end=None):
    path, trace = _open(run)
    rows = {c: [] for c in _COLUMNS}
    try:
        with trace as trace:
            defs = trace.definitions
            clock = defs.clock_properties
            offset, resolution = clock.global_offset, float(clock.timer_resolution)
            places = _places(defs)
            wanted = [loc for loc, (rank, _) in places.items()
                      if ranks is None or rank in set(ranks)]
            if not wanted:
                return pd.DataFrame({c: [] for c in _COLUMNS})
            world = {}  # communicator -> its members' world ranks
            put = [rows[c].append for c in _COLUMNS]
            for loc, ev in trace.events(wanted):
                t = (ev.time - offset) / resolution
                if end is not None and t > end:
                    break
                if start is not None and t < start:
                    continue
                rank, thread = places[loc]
                kind = type(ev).__name__
                region = getattr(ev, "region", None)
                comm = getattr(ev, "communicator", None)
                peer = None
                local = getattr(ev, "receiver", None)
                if local is None:
                    local = getattr(ev, "sender", None)
                if local is None:
                    local = getattr(ev, "root", None)
                if local is not None and comm is not None and local != 0xFFFFFFFF:
                    members = world.get(comm)
                    if members is None:
                        members = world[comm] = [places[m][0] for m in comm.group.members]
                    peer = members[local] if 0 <= local < len(members) else None
                for f, v in zip(put, (rank, thread, t, kind,
                                      region.name if region is not None else None, peer,
                                      comm.name if comm is not None else None,
                                      getattr(ev, "msg_tag", None),
                                      getattr(ev, "msg_length",
                                              getattr(ev, "size_sent", None)))):
                    f(v)
    except MpilensError:
        raise
    except Exception as e:
        raise MpilensError(path, f"cannot be read (damaged?): {e}")
    frame = pd.DataFrame(rows)
    for c in ("peer", "tag", "bytes"):
        frame[c] = frame[c].astype("Int64")
    return frame


def match_messages(events):
    """Sends matched to receives, the k-th send of a (src, dst, comm, tag) to its k-th
    receive, as MPI delivers them (each side in its own rank's order: a receive that the
    clocks of two hosts put a little before its send is still matched, with a negative
    latency)."""
    sends, receives = defaultdict(deque), defaultdict(deque)
    out = []
    p2p = events[events["event"].isin(_SENDS + _RECEIVES)]
    for ev in p2p.itertuples(index=False):
        if ev.event in _SENDS:
            key = (ev.rank, ev.peer, ev.communicator, ev.tag)
            mine, other = sends[key], receives[key]
        else:
            key = (ev.peer, ev.rank, ev.communicator, ev.tag)
            mine, other = receives[key], sends[key]
        if not other:
            mine.append(ev)
            continue
        first = other.popleft()
        send, recv = (ev, first) if ev.event in _SENDS else (first, ev)
        out.append((send.rank, recv.rank, recv.communicator, recv.tag, int(recv.bytes),
                    send.time, recv.time, recv.time - send.time))
    out.sort(key=lambda m: m[6])
    return pd.DataFrame(out, columns=["src", "dst", "communicator", "tag", "bytes",
                                      "send_time", "recv_time", "latency"])
