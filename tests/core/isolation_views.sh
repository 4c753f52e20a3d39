# SPDX-License-Identifier: BSD-3-Clause
# isolation_views.sh: what each module recorded of a run, as text that does not depend on
# time (sourced by test_isolation.sh). RUN is a run directory.
# profile_view RUN: rank, communicator name, operation, bucket, calls, volume per row.
profile_view() {
    sqlite3 -separator ' ' "$1/mpilens.db" "SELECT p.rank, c.name, o.operation, p.bucket, p.calls,
        p.volume FROM profile p JOIN communicators c ON c.id = p.comm_id
        JOIN operations o ON o.id = p.operation_id ORDER BY 1, 2, 3, 4"
}
# monitor_view RUN: phase run's matrix (every kind), histograms, collectives per communicator
# name, and I/O.
monitor_view() {
    sqlite3 -separator ' ' "$1/mpilens.db" "
        SELECT 'matrix', kind, src, dst, messages, bytes FROM monitor_matrix m
            JOIN monitor_phases ph ON ph.id = m.phase_id WHERE ph.name = 'run' ORDER BY 2, 3, 4;
        SELECT 'histogram', src, dst, bin, messages FROM monitor_histogram h
            JOIN monitor_phases ph ON ph.id = h.phase_id WHERE ph.name = 'run' ORDER BY 2, 3, 4;
        SELECT 'collectives', c.name, k.rank, o2a_count, o2a_bytes, a2o_count, a2o_bytes,
            a2a_count, a2a_bytes FROM monitor_collectives k JOIN communicators c ON c.id = k.comm_id
            JOIN monitor_phases ph ON ph.id = k.phase_id WHERE ph.name = 'run' ORDER BY 2, 3;
        SELECT 'io', rank, file, reads, bytes_read, writes, bytes_written FROM monitor_io i
            JOIN monitor_phases ph ON ph.id = i.phase_id WHERE ph.name = 'run' ORDER BY 2, 3;"
}
# trace_view RUN: per rank, region enters by name and messages and collectives by event and
# communicator name (otf2-print), counted.
trace_view() {
    otf2-print "$1/trace/traces.otf2" | awk '
        $1 == "ENTER" { match($0, /Region: "[^"]*"/); print $2, "enter", substr($0, RSTART, RLENGTH) }
        $1 ~ /^MPI_(I?SEND|I?RECV|COLLECTIVE_END)$/ {
            match($0, /Communicator: "[^"]*"/); c = substr($0, RSTART, RLENGTH)
            op = ""; if (match($0, /Operation: [A-Z_]*/)) op = substr($0, RSTART, RLENGTH)
            print $2, $1, op, c }' | sort | uniq -c
}

# require_views: skip the test (77) where the views cannot be made: no trace module, no
# sqlite3 or otf2-print.
require_views() {
    [ -f "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: trace module not built (no OTF2)"; exit 77; }
    command -v sqlite3 > /dev/null && command -v otf2-print > /dev/null ||
        { echo "SKIP: sqlite3 or otf2-print missing"; exit 77; }
}
