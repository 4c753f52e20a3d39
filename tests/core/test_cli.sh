# SPDX-License-Identifier: BSD-3-Clause
# test_cli.sh: the mpilens command: help on every verb, version, the module list with
# descriptions, the default output directory and the closing line of a run.
source "$(dirname "$0")/lib.sh"

for verb in "" "run" "modules"; do
    out=$("$MPILENS" $verb --help 2>&1); status=$?
    check_eq "mpilens $verb --help exits 0" "0" "$status"
    check_has "mpilens $verb --help starts with usage" "$(head -1 <<<"$out")" "$(head -1 <<<"$out" | grep '^usage: mpilens')"
done
check_eq "--version" "mpilens 0.1.0" "$("$MPILENS" --version)"

out=$("$MPILENS" modules profile)
check_has "modules NAME: the arguments the module takes" "$out" \
    "  buckets=B1,B2,...  message-size bucket bounds in bytes, increasing, at most 31 (default 128,1024,8192,65536,262144,1048576,33554432)"
out=$("$MPILENS" modules)
check_has "modules: tlog_a with its description" "$out" \
    "$(printf '%-16s  %5d  %s' tlog_a 6 'test module tlog_a: logs the calls it wraps')"
check_has "modules: third-party tool listed" "$out" \
    "$(printf '%-16s  %5d  %s' counter 3 '(PMPI tool without a description)')"

out=$("$MPILENS" run -m counter -- $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_has "a run whose modules wrote nothing says so" "$out" \
    "mpilens: run finished (status 0); the modules wrote no results"
check_eq "and leaves no empty directory" "" "$(ls -d ring-* 2>/dev/null)"

out=$(TLOG_OUTPUT=1 "$MPILENS" run -m tlog_a -o fixed/sub -- $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_has "closing line names the -o directory" "$out" "mpilens: results in $WORK/fixed/sub (status 0)"
check_eq "modules wrote into it" "tlog_a-rank-0.txt
tlog_a-rank-1.txt" "$(ls fixed/sub)"

# Default: named after the program (not the launcher) and the time.
out=$(TLOG_OUTPUT=1 "$MPILENS" run -m tlog_a -- $MPIRUN -np 2 "$APPS/ring" 2>&1)
dir=$(ls -d ring-2* 2>/dev/null)
check_eq "default directory ring-YYYYmmdd-HHMMSS" "1" "$(grep -cE '^ring-[0-9]{8}-[0-9]{6}$' <<<"$dir")"
check_has "closing line names it" "$out" "mpilens: results in $WORK/$dir (status 0)"
rm -rf ring-2*

# Without the CLI, rank 0 chooses the default name at MPI_Init and broadcasts it.
out=$(TLOG_OUTPUT=1 MPILENS_MODULES=tlog_a LD_PRELOAD=$CORE $MPIRUN -np 3 "$APPS/ring" 2>&1)
dir=$(ls -d ring-2* 2>/dev/null)
check_eq "core's default directory, one for all ranks" "tlog_a-rank-0.txt
tlog_a-rank-1.txt
tlog_a-rank-2.txt" "$(ls $dir)"
check_has "rank 0 says where the results went" "$out" "mpilens: results in $WORK/$dir"
rm -rf ring-2*

out=$(MPILENS_MODULES=tlog_a LD_PRELOAD=$CORE $MPIRUN -np 2 "$APPS/ring" 2>&1)
check_lacks "nothing announced when nothing was written" "$out" "mpilens: results in"

out=$("$MPILENS" run -m counter -- $MPIRUN -np 2 "$APPS/ring" 0 2>&1)
check_has "the application's exit status comes through" "$out" \
    "mpilens: run finished (status 0); the modules wrote no results"
finish
