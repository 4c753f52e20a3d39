#!/usr/bin/env python3
"""mpisee_compat.py DB: run against an mpilens database the queries that mpisee's own
analysis script (mpisee-through) makes, as documented in its source: it creates and fills
a table mpi_time_sum, reads metadata, exectimes, comms, operations and data, looks up
operation ids by mpisee's names, and groups data by communicator, operation and buffer
range. Prints what it found, one fact a line, for the shell test to compare.
"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
cur = db.cursor()
cur.execute("CREATE TABLE IF NOT EXISTS mpi_time_sum (rank INTEGER PRIMARY KEY, total_time REAL)")
cur.execute("DELETE FROM mpi_time_sum")
cur.execute("INSERT INTO mpi_time_sum (rank, total_time) SELECT d.rank, SUM(d.time) FROM data d GROUP BY d.rank")
db.commit()
meta = dict(cur.execute("SELECT key, value FROM metadata").fetchall())
print("processes", meta["Processes"])
exec_ids = [r[0] for r in cur.execute("SELECT t.id, t.time FROM exectimes t ORDER BY t.id ASC")]
print("exectimes", exec_ids)
mpi = cur.execute("SELECT rank, total_time AS mpi_time FROM mpi_time_sum GROUP BY rank ORDER BY rank ASC").fetchall()
print("mpi_time_sum ranks", [r[0] for r in mpi], "positive", all(r[1] > 0 for r in mpi))
for name in ("Sendrecv", "Bcast", "Ibsend", "Init"):
    print("operation id", name, cur.execute("SELECT id FROM operations WHERE operation = ?", (name,)).fetchone()[0])
rows = cur.execute("""
SELECT d.comm_id AS cid, c.name AS comm_name, c.size AS comm_size, d.rank,
       d.operation_id AS opid, o.operation, d.buffer_size_min, d.buffer_size_max,
       SUM(d.calls) AS calls, MAX(d.time) AS time_s, AVG(d.time) AS avg_time,
       SUM(volume) AS total_volume
FROM data d JOIN comms c ON d.comm_id = c.id JOIN operations o ON d.operation_id = o.id
GROUP BY c.name, c.size, o.operation, d.buffer_size_min, d.buffer_size_max""").fetchall()
bcast_id = cur.execute("SELECT id FROM operations WHERE operation = 'Bcast'").fetchone()[0]
for cid, name, size, _, opid, op, bmin, bmax, calls, _, _, volume in sorted(rows, key=lambda r: (r[1], r[5])):
    if opid >= bcast_id:
        calls //= size
    ranks = [r[0] for r in cur.execute(
        "SELECT DISTINCT d.rank FROM data d JOIN comms c ON d.comm_id = c.id WHERE c.id = ?", (cid,))]
    print("row", name, size, op, bmin, bmax, calls, volume, ranks)
print("max buffer within mpisee-through's default filter",
      cur.execute("SELECT MAX(buffer_size_max) <= 2147483647 FROM data").fetchone()[0] == 1)
# SPDX-License-Identifier: BSD-3-Clause
