# SPDX-License-Identifier: BSD-3-Clause
# test_place.sh: `mpilens place` end to end: the paper's case (MPI_Reduce on 32 ranks
# forced to Open MPI's binary tree, the library's pml-level matrix, placed on
# node:4 package:2 core:4) beats round-robin clearly and stays within 5 % of Scotch; the
# monitor's database as input; the output files; the in-application reorder call; bad
# input.
source "$(dirname "$0")/../core/lib.sh"

if [ "$MPI_FLAVOR" = openmpi ]; then
    $MPIRUN -np 32 --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4 \
        --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
        --mca pml_monitoring_filename "$WORK/tree" "$APPS/reduce_loop" > tree.log 2>&1
    check_eq "Open MPI wrote 32 .prof files" "32" "$(ls "$WORK"/tree.*.prof | wc -l)"
    check_has "the binary tree is in the pml matrix: 5 sends to its parent 1" \
        "$(grep -h '^I' "$WORK"/tree.5.prof | cut -f1-3)" "I	5	1"
    out=$("$MPILENS" place --ompi-prof "$WORK/tree" --topology "node:4 package:2 core:4" -o rf)
    cost() { grep "^$1" <<<"$out" | grep -oE ' [0-9]{4,} ' | head -1; }
    rr=$(cost round-robin)
    tm=$(cost TreeMatch)
    scotch=$(cost Scotch)
    check_eq "TreeMatch beats round-robin by more than 10 %" "1" "$(awk -v t="$tm" -v r="$rr" 'BEGIN {print (t < 0.9 * r)}')"
    check_eq "TreeMatch within 5 % of Scotch" "1" "$(awk -v t="$tm" -v s="$scotch" 'BEGIN {print (t <= 1.05 * s)}')"
    check_eq "rankfile: 32 lines rank N=HOST slot=SOCKET:CORE" "32" "$(grep -cE '^rank [0-9]+=node[0-3] slot=[01]:[0-3]$' rf)"
    check_eq "every core used once" "32" "$(cut -d= -f2- rf | sort -u | wc -l)"
    check_eq "rank order: a permutation of 0..31" "$(seq 0 31 | tr '\n' ' ')" "$(grep -v '^#' rf.order | cut -d' ' -f2 | sort -n | tr '\n' ' ')"
    check_eq "MPICH host list: one line per rank" "32" "$(grep -c '^node[0-3]:1$' rf.mpich)"
fi

"$MPILENS" run -m monitor -o run -- $MPIRUN -np 4 "$APPS/monitor_app" p2p-only > run.log 2>&1
out=$("$MPILENS" place run --topology "pack:2 core:2")
check_has "from the monitor's database: topology line" "$out" "topology: pack:2 core:2 (Package:2 Core:2), 4 cores; 4 ranks; metric bytes, kind all"
check_match "a TreeMatch line" "$out" '^TreeMatch \(mpilens\) +[0-9]+ +[0-9.]+'

printf 'src,dst,bytes\n0,1,100\n2,3,100\n0,2,1\n' > m.csv
out=$("$MPILENS" place --matrix m.csv --topology "pack:2 core:2" -o pairs)
check_eq "CSV input: the two talking pairs share packages" "rank 0=localhost slot=0:0
rank 1=localhost slot=0:1
rank 2=localhost slot=1:0
rank 3=localhost slot=1:1" "$(sort -t= -k2 pairs | sort)"

out=$("$MPILENS" run -m monitor -o reorder -- $MPIRUN -np 4 "$APPS/reorder_app" 2>&1)
check_match "in the application: mpilens_monitor_reorder pairs the partners" "$out" '^reorder rc=0: new ranks .*; partners paired: 1$'
out=$(PRELOAD=0 mpi 4 "$APPS/reorder_app" 2>&1)
check_match "without mpilens the call returns -1 and the application goes on" "$out" '^reorder rc=-1: .*partners paired: 0$'

"$MPILENS" run -m profile -o prof -- $MPIRUN -np 2 "$APPS/ring" > /dev/null 2>&1
refused "database without a matrix" "mpilens: place: prof/mpilens.db has no communication matrix; run with the monitor module (mpilens run -m monitor ...); it holds the profile (mpilens report prof/mpilens.db), call sites (mpilens report --callsites prof/mpilens.db)" "$MPILENS" place prof
refused "fewer cores than ranks" "mpilens: place: 4 ranks but the topology has 2 cores; give a larger topology or allow 2 ranks per core with --oversubscribe" "$MPILENS" place run --topology "core:2"
out=$("$MPILENS" place run --topology "core:2" --oversubscribe)
check_has "--oversubscribe: two ranks per core" "$out" "topology: core:2 (Core:2 slot:2), 4 cores; 4 ranks; metric bytes, kind all"
"$MPILENS" place run --topology "core:2" --oversubscribe -o over > /dev/null
check_eq "--oversubscribe: the rankfile puts two ranks on each of the 2 cores" "0:0 0:0 0:1 0:1" \
    "$(sed -n 's/^rank [0-3]=[^ ]* slot=//p' over | sort | tr '\n' ' ' | sed 's/ $//')"
if [ "$MPI_FLAVOR" = openmpi ]; then # the rankfile is Open MPI's; this machine's own topology
    "$MPILENS" place run --oversubscribe -o here > /dev/null
    # the option `place` names: Open MPI 5 (PRRTE) calls --rankfile deprecated
    option=$("$MPILENS" place run --oversubscribe -o here2 | sed -n 's/.*(mpirun \(.*\)here2).*/\1/p')
    if [ "${OMPI_MAJOR:-4}" -ge 5 ]; then want="--map-by rankfile:file="; else want="--rankfile "; fi
    check_eq "place names Open MPI $OMPI_MAJOR's rankfile option" "$want" "$option"
    out=$($MPIRUN $option""here -np 4 hostname 2>&1); status=$?
    check_eq "--oversubscribe on this machine: mpirun accepts the rankfile" "0 4" "$status $(grep -c . <<<"$out")"
fi
echo "<not xml" > bad.xml
refused "unreadable XML" "mpilens: place: bad.xml: cannot read this hwloc XML topology; export one with \`lstopo FILE.xml\` on the target machine" "$MPILENS" place run --topology bad.xml
refused "bad synthetic description" "mpilens: place: --topology 'nodes:x': not an hwloc synthetic description; write e.g. \"node:4 package:2 core:4\"" "$MPILENS" place run --topology "nodes:x"
finish
