# SPDX-License-Identifier: BSD-3-Clause
# test_mpi4.sh: MPI-4 programs (issue 51), on an MPI library that has MPI 4.0's sessions
# (MPICH 4, Open MPI 5; Open MPI 4.1 has none of these functions: skipped there). Open MPI 5.0
# has no large-count functions: its ring uses MPI_Send/MPI_Recv, and the 2^31 + 8 bytes go
# as 2^28 + 1 elements of an 8-byte type. tests/apps/session_app.c with
# MPI_Init, and with sessions only (recorded the same), on a communicator made from a
# session: the persistent Allreduce's 7 starts are
# 7 Allreduce calls a rank ("Allreduce persistent"), the partitioned requests' starts a send
# and a receive ("Send partitioned", "Recv partitioned"), MPI_Pready and MPI_Parrived are charged
# to their requests' communicator, MPI_Send_c/MPI_Recv_c are sends and receives in every
# module; tests/apps/large_count.c: one MPI_Send_c of 2^31 + 8 bytes counts exactly that in
# the profile, the matrix and the trace.
source "$(dirname "$0")/lib.sh"
[ -x "$APPS/session_app" ] || { echo "SKIP: this MPI (Open MPI 4.1) has no MPI-4 sessions"; exit 77; }
if [ -n "${HAVE_LARGE_COUNT:-}" ] && [ "${HAVE_LARGE_COUNT:-}" != 0 ]; then
    sends="MPI_Send_c and MPI_Recv_c"
else
    sends="MPI_Send and MPI_Recv (this MPI has no large-count functions)"
fi
sql() { sqlite3 -separator ' ' "$1/mpilens.db" "$2"; }
PROFILE="SELECT c.name, o.operation, SUM(p.calls), SUM(p.volume) FROM profile p
    JOIN operations o ON o.id = p.operation_id JOIN communicators c ON c.id = p.comm_id"

out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o session -- \
    $MPIRUN -n 4 "$APPS/session_app" init 2>&1)
check_has "session program: ran" "$out" "session_app ok"
check_has "session program: recorded" "$out" "mpilens: results in $WORK/session (status 0)"
comm=$(sql session "SELECT name FROM communicators WHERE creator LIKE '%from_group%'")
check_match "the session's communicator is named (p: MPI_Comm_create_from_group)" "$comm" '^p[0-9]+\.[0-9]+$'
check_eq "persistent Allreduce: 7 starts a rank, as Allreduce (persistent)" \
    "$comm Allreduce persistent 28 224" \
    "$(sql session "$PROFILE WHERE o.operation = 'Allreduce persistent' GROUP BY 1, 2")"
check_eq "Pready on the partitioned request's communicator" "$comm Pready 16 0" \
    "$(sql session "$PROFILE WHERE o.operation = 'Pready' GROUP BY 1, 2")"
check_eq "Parrived on the partitioned request's communicator" "$comm" \
    "$(sql session "$PROFILE WHERE o.operation = 'Parrived' GROUP BY 1, 2" | cut -d' ' -f1)"
check_eq "partitioned starts: a send and a receive of 4 x 256 bytes a rank" \
    "$comm Recv partitioned 4 4096
$comm Send partitioned 4 4096" "$(sql session "$PROFILE WHERE o.operation LIKE '% partitioned'
    GROUP BY 1, 2 ORDER BY 2")"
check_eq "nothing charged to mixed" "" \
    "$(sql session "$PROFILE WHERE c.name = 'mixed' GROUP BY 1, 2")"
check_eq "$sends: 3 rounds of 1000 bytes a rank" "$comm Recv 12 12000
$comm Send 12 12000" "$(sql session "$PROFILE WHERE o.operation IN ('Send', 'Recv')
    GROUP BY 1, 2 ORDER BY 2")"
check_eq "matrix: 3 messages of 1000 bytes and a partitioned one of 1024 to the right" \
    "0 1 4 4024
1 2 4 4024
2 3 4 4024
3 0 4 4024" "$(sql session "SELECT src, dst, messages, bytes FROM monitor_matrix
    WHERE kind = 'p2p' ORDER BY src")"
check_eq "trace: the 12 sends of 1000 bytes ($sends)" "12" \
    "$(otf2-print "$WORK/session/trace/traces.otf2" | grep -c 'MPI_SEND .*Length: 1000$')"

out=$(timeout 180 "$MPILENS" analyze session 2>&1)
check_has "analyze says what it does not replay" "$out" "mpilens: analyze: 8 partitioned send or \
receive requests (MPI_Psend_init, MPI_Precv_init) not replayed: waits in their transfers are \
not counted"
check_match "analyze replays the rest" "$out" "^mpilens: analyze: replayed the trace of 4 ranks"

# the same program with sessions only (no MPI_Init): recorded, and the same
out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o sessions_only -- \
    $MPIRUN -n 4 "$APPS/session_app" 2>&1)
check_has "sessions only: recorded" "$out" "mpilens: results in $WORK/sessions_only (status 0)"
ROWS="$PROFILE WHERE o.operation NOT IN ('Parrived', 'Wait', 'Init', 'Init_thread')
    GROUP BY 1, 2 ORDER BY 1, 2" # polling and waiting counts vary from run to run
check_eq "sessions only: the profile's rows as with MPI_Init" "$(sql session "$ROWS")" \
    "$(sql sessions_only "$ROWS")"
MATRIX="SELECT kind, src, dst, messages, bytes FROM monitor_matrix ORDER BY 1, 2, 3"
check_eq "sessions only: the matrix as with MPI_Init" "$(sql session "$MATRIX")" \
    "$(sql sessions_only "$MATRIX")"
messages() { otf2-print "$WORK/$1/trace/traces.otf2" | awk '/^MPI_(SEND|RECV) / {
    print $1, $2, $NF }' | sort | uniq -c; }
check_eq "sessions only: the trace's messages as with MPI_Init" "$(messages session)" \
    "$(messages sessions_only)"

# 2^31 + 8 bytes in one MPI_Send_c (or 2^28 + 1 elements of 8 bytes): 64-bit byte counts
# everywhere
out=$(timeout 180 "$MPILENS" run -m profile,monitor,trace -o large -- \
    $MPIRUN -n 2 "$APPS/large_count" 2>&1)
check_has "large count: ran" "$out" "large_count ok"
check_eq "large count: the profile's send and receive" "W0.0 Recv 1 2147483656
W0.0 Send 1 2147483656" "$(sql large "$PROFILE WHERE o.operation IN ('Send', 'Recv')
    GROUP BY 1, 2 ORDER BY 2")"
check_eq "large count: the matrix" "0 1 1 2147483656" \
    "$(sql large "SELECT src, dst, messages, bytes FROM monitor_matrix WHERE kind = 'p2p'")"
check_eq "large count: the trace's send and receive" "2" \
    "$(otf2-print "$WORK/large/trace/traces.otf2" | grep -cE 'MPI_(SEND|RECV) .*Length: 2147483656$')"

finish
