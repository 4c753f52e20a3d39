# SPDX-License-Identifier: BSD-3-Clause
# test_monitor_vs_openmpi.sh: the same program (tests/apps/monitor_app.c, point-to-point
# sections) under mpilens' monitor and under Open MPI's own monitoring: the count and byte
# matrices must be identical to Open MPI's external-tag matrices. Then both in one job
# (`mpilens run --ompi-monitoring`): the library's matrix imported beside ours.
# How Open MPI's output is read: with pml_monitoring_enable=2 user messages (external tags)
# and library-internal ones are separated; pml_monitoring_enable_output=3 with a filename
# writes FILE.RANK.prof, whose "E" lines are "E <src> <dst> <B> bytes <N> msgs sent ...".
source "$(dirname "$0")/../core/lib.sh"
[ "$MPI_FLAVOR" = openmpi ] || { echo "SKIP: Open MPI's monitoring is the reference"; exit 77; }

$MPIRUN -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename "$WORK/ompi" "$APPS/monitor_app" p2p-only > ompi.log 2>&1
reference=$(cat "$WORK"/ompi.*.prof | awk -F'\t' '$1 == "E" { split($4, b, " "); split($5, c, " ");
    print $2 "," $3 "," c[1] "," b[1] }' | sort -t, -k1n -k2n)
check_eq "Open MPI wrote its matrices" "12" "$(grep -c . <<<"$reference")"

"$MPILENS" run -m monitor -o run -- $MPIRUN -np 4 "$APPS/monitor_app" p2p-only > run.log 2>&1
ours=$("$MPILENS" matrix run --format csv | tail -n +2 | cut -d, -f2- | sort -t, -k1n -k2n)
check_eq "mpilens monitor == Open MPI's external-tag matrices (src,dst,messages,bytes)" \
    "$reference" "$ours"

# The .prof output of mpilens reads like Open MPI's.
"$MPILENS" matrix run --format prof -o "$WORK/ours" > /dev/null
check_eq ".prof E lines (without histograms) equal Open MPI's" \
    "$(cat "$WORK"/ompi.*.prof | grep '^E' | cut -f1-5 | sort)" \
    "$(cat "$WORK"/ours.*.prof | grep '^E' | cut -f1-5 | sort)"

# Both in one job: the library's .prof files are imported as kinds lib_p2p and lib_coll.
"$MPILENS" run --ompi-monitoring --no-record -m monitor -o both -- $MPIRUN -np 4 "$APPS/monitor_app" all \
    "$WORK/both.out" > both.log 2>&1
check_match "the import is announced" "$(cat both.log)" "Open MPI's own monitoring: [0-9]+ matrix rows imported"
m() { "$MPILENS" matrix both --kind "$1" --format csv | tail -n +2 | cut -d, -f2- | sort -t, -k1n -k2n; }
# The library also sees the monitor's own finalize merge (binomial tree on 4 ranks: 1->0,
# 2->0, 3->2, one message each); everywhere else its external matrix is ours.
check_eq "lib_p2p = p2p + one merge message on 1->0, 2->0, 3->2" "$(m p2p | awk -F, '
    { m = $3; if (($1 == 1 && $2 == 0) || ($1 == 2 && $2 == 0) || ($1 == 3 && $2 == 2)) m++;
      print $1 "," $2 "," m }')" "$(m lib_p2p | cut -d, -f1-3)"
check_match "lib_coll: the collectives and one-sided traffic as transported" \
    "$(m lib_coll | awk -F, '{ n += $3; b += $4 } END { print NR " pairs " n " msgs " b " B" }')" \
    '^[1-9][0-9]* pairs [1-9][0-9]* msgs [1-9][0-9]* B$'
refused "--ompi-monitoring with another launcher" \
    "mpilens: run --ompi-monitoring: 'mpiexec.hydra' is not Open MPI's mpirun; drop the option or launch with Open MPI" \
    "$MPILENS" run --ompi-monitoring -m monitor -o other -- mpiexec.hydra -n 1 true
finish
