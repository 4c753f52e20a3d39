# SPDX-License-Identifier: BSD-3-Clause
# test_matrix_cli.sh: `mpilens matrix` output formats and bad input; the monitor under
# MPI_THREAD_MULTIPLE and from Fortran.
source "$(dirname "$0")/../core/lib.sh"

"$MPILENS" run -m monitor -o run -- $MPIRUN -np 4 "$APPS/monitor_app" p2p-only > run.log 2>&1
text=$("$MPILENS" matrix run --phase ring)
check_eq "text matrix with heat shading" "p2p bytes matrix, phase ring, 4 ranks (rows: senders, columns: receivers)
                0       1       2       3
        0      .    1.0K█      .       . 
        1      .       .    1.0K█      . 
        2      .       .       .    1.0K█
        3   1.0K█      .       .       . " "$text"
check_match "count metric" "$("$MPILENS" matrix run --metric count --phase halo)" '^ +0 +\. +2. +2. +\. $'
"$MPILENS" matrix run --format svg -o m.svg > /dev/null
check_eq "SVG heatmap: one cell per pair" "16" "$(grep -c '<rect.*<title>rank' m.svg)"
check_eq "SVG heatmap: axis titles, rank labels on both axes, a 5-step scale in bytes" "1 1 8 5 1" \
    "$(grep -c '>receiver rank<' m.svg) $(grep -c '>sender rank<' m.svg) $(grep -cE 'text-anchor="(middle|end)">[0-3]<' m.svg) $(grep -c 'stroke="#999"' m.svg) $(grep -c '>bytes</text>' m.svg)"
"$MPILENS" matrix run --format html -o m.html > /dev/null
check_eq "HTML page with the heatmap and CSV" "1 1" "$(grep -c '<svg' m.html) $(grep -c '^p2p,0,1,' m.html)"

refused "unknown phase" "mpilens: matrix: run/mpilens.db: no phase 'nope'; the phases are listed by mpilens matrix --format csv" "$MPILENS" matrix run --phase nope
refused "bad kind" "mpilens: matrix: --kind 'net': use p2p, coll, rma, io, all, lib_p2p or lib_coll" "$MPILENS" matrix run --kind net
refused "bad format" "mpilens: matrix: --format 'png': use text, csv, svg, html or prof" "$MPILENS" matrix run --format png
"$MPILENS" run -m profile -o prof -- $MPIRUN -np 2 "$APPS/ring" > /dev/null 2>&1
refused "database without a matrix" "mpilens: matrix: prof/mpilens.db has no communication matrix; run with the monitor module (mpilens run -m monitor ...); it holds the profile (mpilens report prof/mpilens.db), call sites (mpilens report --callsites prof/mpilens.db)" "$MPILENS" matrix prof
refused "missing database" "mpilens: matrix: nothing/mpilens.db: no such database; give the mpilens.db of a run (mpilens run prints where it is)" "$MPILENS" matrix nothing/mpilens.db

out=$("$MPILENS" run -m monitor,profile -o both -- $MPIRUN -np 2 "$APPS/threads" 4 500 2>&1)
check_has "monitor and profile stacked, 4 threads per rank" "$out" "threads ok: 2 ranks x 4 threads x 500 messages"
check_eq "threads: every send counted once, both modules in one database" "0,1,2000,8000 1,0,2000,8000 " \
    "$("$MPILENS" matrix both --format csv | tail -n +2 | cut -d, -f2- | tr '\n' ' ')"
check_eq "the profile of the same run is in the same file" "4000" \
    "$(sqlite3 both/mpilens.db "SELECT SUM(calls) FROM profile p JOIN operations o ON o.id = p.operation_id WHERE o.operation = 'Isend'")"
check_eq "--histogram --format csv: rank 0's 2000 sends of 4 B, in the 4-7 B bin" \
    "peer,min_bytes,max_bytes,messages 1,4,7,2000 " "$("$MPILENS" matrix both --histogram 0 --format csv | tr '\n' ' ')"
refused "--histogram has no picture" \
    "mpilens: matrix: --histogram with --format 'svg': histograms print as text or csv; give --format csv or leave --format out" \
    "$MPILENS" matrix both --histogram 0 --format svg
if [ "${HAVE_FORTRAN:-0}" = 1 ]; then
    "$MPILENS" run -m monitor -o fortran -- $MPIRUN -np 2 "$APPS/fring_f08" > /dev/null 2>&1
    check_eq "Fortran: 3 sends of 1 KiB each way (one from MPI_BOTTOM)" "0,1,3,3072 1,0,3,3072 " \
        "$("$MPILENS" matrix fortran --format csv | tail -n +2 | cut -d, -f2- | tr '\n' ' ')"
fi
finish
