# SPDX-License-Identifier: BSD-3-Clause
# test_comm_churn.sh: creating and freeing communicators costs the same at the 64,000th as at
# the first, and memory does not grow with them (bench/comm_churn.c under profile, monitor
# and trace stacked, 2 ranks). Cost: the last 4,000 rounds of a 64,000-round run against its
# first 4,000, in one run; a registry that scans what it registered before makes the ratio
# ~30, so the bound of 4 holds against noise (and a ratio above it is measured once more
# before it fails). Memory: the peak RSS of 64,000 rounds at most 2 MB above that of 4,000.
source "$(dirname "$0")/lib.sh"
churn=$BUILD/bench/comm_churn
[ -x "$churn" ] || { echo "SKIP: bench/comm_churn not built"; exit 77; }

# field NAME LINE: the value of NAME=value in LINE
field() { grep -o "$1=[0-9.]*" <<<"$2" | cut -d= -f2; }
run_churn() { # KIND ROUNDS
    MPILENS_OUTPUT=$WORK/out-$1-$2 LD_PRELOAD=$CORE MPILENS_MODULES=profile,monitor,trace \
        $MPIRUN -np 2 "$churn" "$1" "$2" 4000 2>&1 | grep '^comm_churn'
}
for kind in dup split; do
    for attempt in 1 2; do
        line=$(run_churn $kind 64000)
        ratio=$(awk -v f="$(field first_s "$line")" -v l="$(field last_s "$line")" \
                'BEGIN {printf "%.2f", (f > 0 ? l / f : 99)}')
        awk -v r="$ratio" 'BEGIN {exit !(r < 4)}' && break
    done
    check_eq "$kind: the last 4,000 of 64,000 rounds cost as much as the first (ratio $ratio < 4)" \
        1 "$(awk -v r="$ratio" 'BEGIN {print (r < 4)}')"
    small=$(run_churn $kind 4000)
    grown=$(( $(field rss_kb "$line") - $(field rss_kb "$small") ))
    check_eq "$kind: peak RSS of 64,000 rounds at most 2 MB above 4,000 ($grown KB)" \
        1 "$([ "$grown" -le 2048 ] && echo 1 || echo 0)"
done
finish
