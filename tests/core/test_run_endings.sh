# test_run_endings.sh: how `mpilens run` starts and ends a job: an -o directory that holds
# results is refused before anything starts (the first results left byte-identical); two
# runs started together never share the default directory; SIGTERM to `mpilens run` (a
# batch system's time limit) reaches the whole job, no rank is left running, the status is
# non-zero and the last line says the job ended abnormally and where the results are.
source "$(dirname "$0")/lib.sh"

"$MPILENS" run -m profile -o first -- $MPIRUN -np 2 "$APPS/ring" > first.log 2>&1
sum=$(md5sum < first/mpilens.db)
refused "a used -o is refused" \
    "mpilens: run -o first: already holds results (of an earlier run?); give a new directory, or remove this one first" \
    "$MPILENS" run -m profile -o first -- $MPIRUN -np 2 "$APPS/ring"
check_eq "the first database is left byte-identical" "$sum" "$(md5sum < first/mpilens.db)"

mkdir together && cd together || exit 1
"$MPILENS" run -m profile -- $MPIRUN -np 2 "$APPS/ring" > a.log 2>&1 &
"$MPILENS" run -m profile -- $MPIRUN -np 2 "$APPS/ring" > b.log 2>&1
wait
dirs=$(grep -ho 'results in .* (status 0)' a.log b.log | sort -u | wc -l)
check_eq "two runs started together write to two directories" "2" "$dirs"
cd "$WORK" || exit 1

"$MPILENS" run -m profile,monitor -o stopped -- $MPIRUN -np 4 "$APPS/long_app" 600 > stopped.log 2>&1 &
run_pid=$!
for _ in $(seq 100); do grep -q "long_app step 10" stopped.log && break; sleep 0.2; done
kill -TERM $run_pid
wait $run_pid; status=$?
check_eq "SIGTERM: mpilens run ends with a non-zero status" 1 "$([ $status -ne 0 ] && echo 1 || echo 0)"
check_match "SIGTERM: the last line says the job ended abnormally" "$(tail -1 stopped.log)" \
    "^mpilens: job ended abnormally \\(status [0-9]+, stopped by a signal\\)"
for _ in $(seq 150); do pgrep -f "$APPS/long_app" > /dev/null || break; sleep 0.2; done
check_eq "SIGTERM: no rank of the job is left running" "" "$(pgrep -f "$APPS/long_app")"
pkill -KILL -f "$APPS/long_app" 2> /dev/null
finish
