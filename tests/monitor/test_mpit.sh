# SPDX-License-Identifier: BSD-3-Clause
# test_mpit.sh: the monitor through MPI_T, as programs written for Open MPI's monitoring
# use it (tests/apps/mpit_app.c: the paper's Figure 1 unchanged, Open MPI's flush
# protocol): variable types, classes, bindings and counts; per-peer counts; stop halting
# recording; cumulative counters; collective kinds; PREFIX.RANK.prof written at the stop
# of the flush variable and a phase of that name; MPI_T error codes for bad calls.
source "$(dirname "$0")/../core/lib.sh"

out=$("$MPILENS" run -m monitor -o run -- $MPIRUN -np 4 "$APPS/mpit_app" "$WORK/phase_1" 2>&1)
check_has "application ran" "$out" "mpit_app ok: 4 ranks"
check_eq "variables as Open MPI declares them" "mpit: pml_monitoring_messages_count class=size type=MPI_UNSIGNED_LONG bind=comm readonly=1 continuous=0 count=4
mpit: pml_monitoring_messages_size class=size type=MPI_UNSIGNED_LONG bind=comm readonly=1 continuous=0 count=4
mpit: osc_monitoring_messages_sent_count class=size type=MPI_UNSIGNED_LONG_LONG bind=comm readonly=1 continuous=0 count=4
mpit: osc_monitoring_messages_recv_size class=size type=MPI_UNSIGNED_LONG_LONG bind=comm readonly=1 continuous=0 count=4
mpit: coll_monitoring_messages_count class=size type=MPI_UNSIGNED_LONG_LONG bind=comm readonly=1 continuous=0 count=4
mpit: coll_monitoring_o2a_count class=counter type=MPI_UNSIGNED_LONG_LONG bind=comm readonly=1 continuous=0 count=1
mpit: coll_monitoring_a2a_size class=aggregate type=MPI_UNSIGNED_LONG_LONG bind=comm readonly=1 continuous=0 count=1
mpit: pml_monitoring_flush class=generic type=MPI_CHAR bind=none readonly=0 continuous=0 count=0" \
    "$(grep 'class=' <<<"$out")"
check_eq "Figure 1, stop/start, kinds, flush, error codes" "mpit: after 3 messages: count to rank 1 = 3, bytes = 3072
mpit: stopped, one more message: count to rank 1 = 3 (of 3)
mpit: restarted, one more: count to rank 1 = 4, to rank 2 = 0
mpit: o2a bytes at the root after one Bcast of 100 B: 300 (count 1)
mpit: after the flush: count to rank 1 = 0 (reset), flushes 1
mpit: get_info(bad index) is MPI_T_ERR_INVALID_INDEX: 11
mpit: handle_alloc(bad index) is MPI_T_ERR_INVALID_INDEX: 11
mpit: write(read-only) is MPI_T_ERR_PVAR_NO_WRITE: 11
mpit: reset(read-only) is MPI_T_ERR_PVAR_NO_WRITE: 11" "$(grep '^mpit: ' <<<"$out" | grep -v 'class=')"
check_eq "flush wrote PREFIX.RANK.prof for every rank" "phase_1.0.prof phase_1.1.prof phase_1.2.prof phase_1.3.prof " \
    "$(cd "$WORK" && ls phase_1.*.prof | tr '\n' ' ')"
check_match "the .prof file holds the flushed phase" "$(cat "$WORK/phase_1.2.prof")" \
    '^E	2	3	512 bytes	1 msgs sent	0,0,0,0,0,0,0,0,0,0,1,'
check_eq "the phase is in the database under the prefix" "$WORK/phase_1,2,3,1,512" \
    "$(sqlite3 -separator , run/mpilens.db "SELECT p.name, src, dst, messages, bytes FROM monitor_matrix m JOIN monitor_phases p ON p.id = m.phase_id WHERE kind = 'p2p' AND src = 2 AND p.name LIKE '%phase_1'")"
finish
