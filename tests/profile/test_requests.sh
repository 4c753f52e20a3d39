# SPDX-License-Identifier: BSD-3-Clause
# test_requests.sh: every completion is charged to its own request's communicator
# (tests/apps/requests_app.c, 2 ranks), although Open MPI gives every send that completed
# inline one shared handle: Wait in either order, Waitall of two communicators (mixed), a
# copy of a handle, Waitany, Waitsome, each Test form, persistent requests (MPI_Start of a
# Send_init counted as "Send persistent", Startall, Request_free), a nonblocking collective, nonblocking I/O, a request-based put,
# a cancelled receive, a generalized request (no communicator: W0.0). Rank 0's rows are
# exact, and the same under Open MPI and MPICH.
source "$(dirname "$0")/../core/lib.sh"
"$MPILENS" run -m profile -o run -- $MPIRUN -np 2 "$APPS/requests_app" > run.log 2>&1
check_has "the application's own result" "$(cat run.log)" "requests_app ok"
check_eq "rank 0: each completion on its request's communicator" "d0.1 File_iwrite 1
d0.1 Ibarrier 1
d0.1 Irecv 1
W0.0 Isend 5
d0.1 Isend 11
d0.1 Rput 1
d0.1 Send persistent 1
d0.1 Send_init 1
d0.1 Startall 1
W0.0 Test 1
d0.1 Test 1
d0.1 Testall 1
d0.1 Testany 1
d0.1 Testsome 1
W0.0 Wait 4
d0.1 Wait 8
d0.1 Waitall 1
mixed Waitall 1
d0.1 Waitany 1
d0.1 Waitsome 1" "$(sqlite3 -separator ' ' run/mpilens.db "SELECT c.name, o.operation, p.calls
    FROM profile p JOIN communicators c ON c.id = p.comm_id JOIN operations o ON o.id = p.operation_id
    WHERE p.rank = 0 AND o.operation IN ('Wait', 'Waitall', 'Waitany', 'Waitsome', 'Test',
    'Testall', 'Testany', 'Testsome', 'Start', 'Startall', 'Isend', 'Send_init', 'Ibarrier',
    'Send persistent',
    'Irecv', 'Rput', 'File_iwrite') ORDER BY 2, 1")"
check_eq "rank 0: a persistent request's starts carry its bytes (MPI_Start's as sends)" \
"Send persistent 1 4
Send_init 1 4
Startall 1 4" "$(sqlite3 -separator ' ' run/mpilens.db "SELECT o.operation, p.calls, p.volume
    FROM profile p JOIN operations o ON o.id = p.operation_id
    WHERE p.rank = 0 AND o.operation IN ('Send_init', 'Start', 'Send persistent', 'Startall')
    ORDER BY 1")"
finish
