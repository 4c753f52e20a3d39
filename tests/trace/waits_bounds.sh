# SPDX-License-Identifier: BSD-3-Clause
# waits_bounds.sh: the injected delay of the wait-state tests and the bounds a measured wait
# must fall in (sourced by test_analyze.sh and test_analyze_rma.sh). The delay is long
# against the scheduling noise of 4 ranks on 2 cores (a few ms where ranks yield, Open MPI's
# default; up to ~20 ms where they busy-poll, MPICH and Open MPI's osc sm): a wait is the
# delay within -10 %..+25 % (-20 %..+40 % when polling), and no other wait reaches 10 % of
# it (20 %). On a busy machine one scheduling stall can still stretch a wait past a bound,
# so a timing verdict that fails is settled by running its scenario again (settled): a
# real fault fails every attempt, a stall does not come back three times.
export WAITS_DELAY_MS=200
# bounds yielding|polling: sets low, high (ms) and quiet (s)
bounds() {
    if [ "$1" = yielding ]; then low=180 high=250 quiet=0.020; else low=160 high=280 quiet=0.040; fi
}
# in_range WHAT TEXT REGEX COUNT: the first number captured by REGEX's line in TEXT (seconds)
# is COUNT waits of the delay within the bounds.
in_range() {
    local value
    value=$(grep -E -- "$3" <<<"$2" | head -1 | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) {print $i; exit}}')
    check_eq "$1 ($value s for $4 waits of $low..$high ms)" 1 \
        "$(awk -v v="${value:-0}" -v n="$4" -v lo="$low" -v hi="$high" 'BEGIN {print (v * 1000 >= n * lo && v * 1000 <= n * hi)}')"
}

# settled NAME CHECK ARGS...: CHECK (silent; 0 when the verdict holds) on scenario NAME's
# results; when it fails, the scenario runs again (the caller's `rerun NAME`), at most
# twice, saying so. The caller then checks and reports on the last attempt's results.
settled() {
    local name=$1 attempt
    shift
    for attempt in 1 2 3; do
        "$@" && return 0
        [ $attempt -lt 3 ] || return 1
        echo "note: $name: '$*' did not hold on attempt $attempt (a scheduling stall?); running it again"
        rerun "$name"
    done
}
# waits_hold FOUND RANKS: FOUND ("rank:ms ...") are exactly RANKS, each within low..high.
waits_hold() {
    local ranks="" w
    for w in $1; do
        ranks="$ranks${w%%:*} "
        [ "${w##*:}" -ge $low ] && [ "${w##*:}" -le $high ] || return 1
    done
    [ "$ranks" = "$2" ]
}
