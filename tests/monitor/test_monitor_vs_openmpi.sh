# test_monitor_vs_openmpi.sh: the same program (tests/apps/monitor_app.c, point-to-point
# sections) under mpilens' monitor and under Open MPI's own monitoring: the count and byte
# matrices must be identical to Open MPI's external-tag matrices.
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
finish
