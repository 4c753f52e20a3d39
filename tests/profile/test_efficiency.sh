# SPDX-License-Identifier: BSD-3-Clause
# test_efficiency.sh: the POP metrics (mpilens report --efficiency, docs/efficiency.md) on
# programs of known efficiencies (tests/apps/efficiency_app.c, 4 ranks; computing is
# sleeping, so it lasts as long on a loaded machine): one rank computing twice as long
# before each barrier gives load balance 0.625; a token passed around the ranks, each
# computing in turn, load balance near 1 and communication efficiency near 1/4, and, traced
# and replayed on an ideal network by analyze, serialization efficiency near 1/4 with
# transfer efficiency near 1. Parallel efficiency is the product of its two factors.
source "$(dirname "$0")/../core/lib.sh"
metric() { awk -F, -v m="$2" '$1 == m { print $2 }' <<<"$1"; }
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { print (v >= lo && v <= hi) ? "yes" : "no: " v }'; }
for mode in imbalance chain; do
    out=$(timeout 120 "$MPILENS" run -m profile -o "$mode" -- $MPIRUN -np 4 \
        "$APPS/efficiency_app" "$mode" 2>&1)
    check_has "$mode: ran" "$out" "efficiency_app $mode ok"
done
csv=$("$MPILENS" report imbalance --efficiency --csv)
check_has "csv: metric,value,phase" "$csv" "metric,value,phase"
lb=$(metric "$csv" load_balance) ce=$(metric "$csv" communication_efficiency)
pe=$(metric "$csv" parallel_efficiency)
check_eq "imbalance: load balance 0.625 +- 0.06 ($lb)" yes "$(within "$lb" 0.565 0.685)"
check_eq "imbalance: communication efficiency >= 0.85 ($ce)" yes "$(within "$ce" 0.85 1.0)"
check_eq "imbalance: parallel efficiency = load balance x communication efficiency" yes \
    "$(within "$(awk -v p="$pe" -v l="$lb" -v c="$ce" 'BEGIN { d = p - l * c; print d < 0 ? -d : d }')" 0 0.000002)"
csv=$("$MPILENS" report chain --efficiency --csv)
lb=$(metric "$csv" load_balance) ce=$(metric "$csv" communication_efficiency)
check_eq "chain: load balance >= 0.9 ($lb)" yes "$(within "$lb" 0.9 1.0)"
check_eq "chain: communication efficiency near 1/4 ($ce)" yes "$(within "$ce" 0.17 0.27)"
py=$(PYTHONPATH="$SRC/python" /usr/bin/python3 -c '
import sys, mpilens
for row in mpilens.open(sys.argv[1]).efficiency.itertuples():
    print("%s,%.6f,%s" % (row.metric, row.value, row.phase))' imbalance 2>&1)
check_eq "Python: run.efficiency as the report (the MPI share too)" \
    "$("$MPILENS" report imbalance --efficiency --csv |
        grep -E '^(parallel_efficiency|load_balance|communication_efficiency|mpi_share),')" "$py"
out=$("$MPILENS" diff imbalance chain 2>&1)
check_match "diff: load balance of both" "$out" '^  load balance +6[0-9]\.[0-9] % +(9[0-9]|100)\.[0-9] % '
check_match "diff: communication efficiency of both" "$out" \
    '^  communication efficiency +(9[0-9]|100)\.[0-9] % +[12][0-9]\.[0-9] % '
# serialization and transfer: the chain traced and replayed on an ideal network (analyze)
out=$(timeout 120 "$MPILENS" run -m profile,trace -o traced -- $MPIRUN -np 4 \
    "$APPS/efficiency_app" chain 2>&1)
check_has "traced chain: ran" "$out" "efficiency_app chain ok"
timeout 180 "$MPILENS" analyze traced > analyze.log 2>&1
csv=$("$MPILENS" report traced --efficiency --csv)
se=$(metric "$csv" serialization_efficiency) te=$(metric "$csv" transfer_efficiency)
check_eq "chain: serialization efficiency near 1/4 ($se)" yes "$(within "${se:-9}" 0.17 0.33)"
check_eq "chain: transfer efficiency >= 0.85 ($te)" yes "$(within "${te:-0}" 0.85 1.0)"
check_eq "Python: the replay's two metrics" "serialization_efficiency transfer_efficiency" \
    "$(PYTHONPATH="$SRC/python" /usr/bin/python3 -c '
import sys, mpilens
e = mpilens.open(sys.argv[1]).efficiency
print(*e[e.metric.isin(["serialization_efficiency", "transfer_efficiency"])].metric)' traced)"
check_eq "Python: the efficiency plot (five bars) as a PNG" "5 PNG" \
    "$(PYTHONPATH="$SRC/python" /usr/bin/python3 -c '
import sys, mpilens
fig = mpilens.open(sys.argv[1]).plot_efficiency()
fig.savefig("efficiency.png")
print(len(fig.axes[0].patches), open("efficiency.png", "rb").read(4)[1:].decode())' traced)"
# per phase: both programs in one run, each in an MPI_Pcontrol user region of its name; the
# profile ignores the levels (pcontrol=0), the trace makes them phases, analyze times them
out=$(timeout 120 "$MPILENS" run -m profile:pcontrol=0,trace -o phases -- $MPIRUN -np 4 \
    "$APPS/efficiency_app" phases 2>&1)
check_has "phases: ran" "$out" "efficiency_app phases ok"
timeout 180 "$MPILENS" analyze phases > analyze-phases.log 2>&1
csv=$("$MPILENS" report phases --efficiency --csv)
phase() { awk -F, -v m="$2" -v p="$3" '$1 == m && $3 == p { print $2 }' <<<"$1"; }
lb=$(phase "$csv" load_balance imbalance) ce=$(phase "$csv" communication_efficiency imbalance)
check_eq "phase imbalance: load balance 0.625 +- 0.06 ($lb)" yes "$(within "${lb:-0}" 0.565 0.685)"
check_eq "phase imbalance: communication efficiency >= 0.85 ($ce)" yes "$(within "${ce:-0}" 0.85 1.0)"
lb=$(phase "$csv" load_balance chain) ce=$(phase "$csv" communication_efficiency chain)
pe=$(phase "$csv" parallel_efficiency chain)
check_eq "phase chain: load balance >= 0.9 ($lb)" yes "$(within "${lb:-0}" 0.9 1.0)"
check_eq "phase chain: communication efficiency near 1/4 ($ce)" yes "$(within "${ce:-9}" 0.17 0.27)"
check_eq "phase chain: parallel efficiency = load balance x communication efficiency" yes \
    "$(within "$(awk -v p="${pe:-9}" -v l="$lb" -v c="$ce" 'BEGIN { d = p - l * c; print d < 0 ? -d : d }')" 0 0.000002)"
se=$(phase "$csv" serialization_efficiency chain) te=$(phase "$csv" transfer_efficiency chain)
check_eq "phase chain: serialization efficiency near 1/4 ($se)" yes "$(within "${se:-9}" 0.17 0.33)"
check_eq "phase chain: transfer efficiency >= 0.85 ($te)" yes "$(within "${te:-0}" 0.85 1.0)"
se=$(phase "$csv" serialization_efficiency imbalance)
check_eq "phase imbalance: serialization efficiency >= 0.85 (the barrier waits for rank 0) ($se)" \
    yes "$(within "${se:-0}" 0.85 1.0)"
# a replay whose ideal run came out longer than the real one (as Open MPI 5 once gave:
# transfer 1.000623): forced here on a copy of the analyzed run, whole and per phase. Every
# view shows it within bounds, taken as long as the real run (docs/efficiency.md, Within
# bounds): transfer 1, serialization x transfer; the database keeps what was measured.
mkdir pushed && cp phases/mpilens.db pushed/
sqlite3 pushed/mpilens.db "UPDATE metadata SET value = '1.000623' WHERE key = 'Transfer efficiency';
    UPDATE metadata SET value = '0.250000' WHERE key = 'Serialization efficiency';
    UPDATE phase_times SET ideal = seconds * 1.02 WHERE phase = 'chain'"
csv=$("$MPILENS" report pushed --efficiency --csv)
check_eq "replay above 1: transfer efficiency 1, serialization x transfer (0.250156)" \
    "1.000000 0.250156" "$(phase "$csv" transfer_efficiency run) $(phase "$csv" serialization_efficiency run)"
check_eq "replay above 1 in a phase: its transfer efficiency 1" "1.000000" \
    "$(phase "$csv" transfer_efficiency chain)"
check_match "replay above 1: the report says by how much and why" \
    "$("$MPILENS" report pushed --efficiency)" "ideal run came out 0\.06 % longer than the real one"
check_eq "replay above 1: the database keeps the replay's figure" "1.000623" \
    "$(sqlite3 pushed/mpilens.db "SELECT value FROM metadata WHERE key = 'Transfer efficiency'")"
check_eq "replay above 1: Python as the report" \
    "$(grep -E '^(serialization|transfer)_efficiency' <<<"$csv")" \
    "$(PYTHONPATH="$SRC/python" /usr/bin/python3 -c '
import sys, mpilens
e = mpilens.open(sys.argv[1]).efficiency
for row in e.itertuples():
    if row.metric in ("serialization_efficiency", "transfer_efficiency"):
        print("%s,%.6f,%s" % (row.metric, row.value, row.phase))' pushed)"
check_match "the report's table per phase" "$("$MPILENS" report phases --efficiency)" \
    '^    chain +0\.[0-9]{3} +[01]\.[0-9]{3} +0\.[0-9]{3} +0\.[0-9]{3} +[01]\.[0-9]{3} +[0-9]+\.[0-9]{6}$'
check_eq "Python: the phases' rows, five metrics each" "imbalance 5 chain 5" \
    "$(PYTHONPATH="$SRC/python" /usr/bin/python3 -c '
import sys, mpilens
e = mpilens.open(sys.argv[1]).efficiency
e = e[e.phase != "run"]
print(*["%s %d" % (p, len(e[e.phase == p])) for p in e.phase.unique()])' phases)"
check_match "the call sites with the most MPI time" "$("$MPILENS" report phases --efficiency)" \
    '^  call sites with the most MPI time: efficiency_app\.c:[0-9]+ (Recv|Barrier) [0-9]+ %'
text=$("$MPILENS" report imbalance)
check_match "the report's efficiency section" "$text" '^  load balance             0\.[0-9]{3}  '
out=$(timeout 120 "$MPILENS" run -m profile -o comms -- $MPIRUN -np 4 "$APPS/comms_app" 2>&1)
check_match "the load balance within sub-communicators" \
    "$("$MPILENS" report comms --efficiency)" \
    '^  load balance within: [a-z][0-9]+\.[0-9]+ [01]\.[0-9]{2} \([0-9]+ ranks\)(, [a-z][0-9]+\.[0-9]+ [01]\.[0-9]{2} \([0-9]+\)){2}; the lowest of [0-9]+$'
check_has "where the MPI time goes (Init and Finalize left out)" "$text" \
    "  where the MPI time goes: W0.0 Barrier 100 %"
check_match "the overall run line" "$text" '^  run             max [0-9.]+ s \(rank [0-3]\), average [0-9.]+ s, MPI_Init to MPI_Finalize$'
finish
