# SPDX-License-Identifier: BSD-3-Clause
# test_scaling.sh: the POP scaling table (src/pop, docs/efficiency.md "Across runs") on
# tests/apps/scaling_app.c, a program of known scaling whose work and waits are sleeps: W =
# 4800 ms of work split evenly, S = 300 ms serial on rank 0, C = 200 ms a rank at the root
# of a linear collective (the last rank). `mpilens run --ranks
# 1,2,4,8` makes the sweep; speedup, load balance, communication efficiency, computation
# scalability and global efficiency are each within 0.05 of the values derived from the
# construction; the 8-rank run analyzed adds
# serialization and transfer. The same runs' summary.json records ingested into a site
# store give the same table through `mpilens site scaling` as the directories through
# `mpilens scaling --summary`. Also: the text fits 80 columns, CSV, JSON, the page in
# Chromium, Python's mpilens.scaling, --weak, --ref, and the refusals.
source "$(dirname "$0")/../core/lib.sh"

# C = 200 ms, not the program's default 100: MPICH's ranks busy-poll, and 8 of them on 2
# cores leave MPI_Init up to 20 ms apart and notice the last broadcast a turn of the
# scheduler late, whatever the program does (the sleeps themselves wake on time:
# tests/apps/scaling_app.c): 8 to 28 ms late, up to 0.05 of the speedup of a 1.7 s run at 8
# ranks, half that of the 2.5 s run here.
W=4800 S=300 C=200
out=$(timeout 300 "$MPILENS" run --ranks 1,2,4,8 -m profile,summary,trace -o sweep -- \
    $MPIRUN -np {} "$APPS/scaling_app" $W $S $C 2> sweep.err)
status=$?
cat sweep.err
echo "$out"
check_eq "run --ranks: status 0" 0 $status
check_eq "run --ranks: a progress line before each run" "$(printf 'run %s of 4, %s rank%s, into sweep/ranks-%s\n' 1 1 '' 1 2 2 s 2 3 4 s 4 4 8 s 8)" \
    "$(sed -n 's/^mpilens: run --ranks: \(run .*\)$/\1/p' sweep.err)"
check_match "run --ranks: the summary line says where the runs are" "$(tail -n 1 sweep.err)" \
    '^mpilens: run --ranks: 4 of 4 runs in sweep; the table again: mpilens scaling sweep/ranks-\*$'
check_eq "run --ranks: each application ran at its count" "1 2 4 8" \
    "$(sed -n 's/^scaling_app ok: \([0-9]*\) ranks$/\1/p' <<<"$out" | tr '\n' ' ' | sed 's/ $//')"
check_eq "run --ranks: the page beside the runs" yes "$([ -s sweep/scaling.html ] && echo yes)"

# The values the construction gives (docs/efficiency.md derives them), per rank count P:
# T = W/P + S + P C, useful in all U = W + S + P C, the most useful rank's W/P + S + P C on
# one rank, else W/P + max(S, P C).
expected() { # METRIC P
    awk -v m="$1" -v p="$2" -v w=$W -v s=$S -v c=$C 'BEGIN {
        t = w / p + s + p * c; u = w + s + p * c; t1 = w + s + c
        mx = p == 1 ? t : w / p + (s > p * c ? s : p * c)
        v["speedup"] = t1 / t; v["load_balance"] = u / p / mx
        v["communication_efficiency"] = mx / t; v["parallel_efficiency"] = u / (p * t)
        v["computation_scalability"] = t1 / u; v["global_efficiency"] = t1 / (p * t)
        printf "%.4f", v[m] }'
}
"$MPILENS" scaling sweep/ranks-1 sweep/ranks-2 sweep/ranks-4 sweep/ranks-8 --csv > table.csv
# Each within 0.05.
for metric in speedup global_efficiency parallel_efficiency load_balance communication_efficiency \
    computation_scalability; do
    for p in 1 2 4 8; do
        got=$(awk -F, -v m=$metric -v p=$p '$1 == m && $2 == p {print $3}' table.csv)
        want=$(expected $metric $p)
        check_eq "$metric at $p ranks: $got within 0.05 of $want" 1 \
            "$(awk -v a="$got" -v b="$want" 'BEGIN {d = a - b; print (a != "" && d < 0.05 && d > -0.05) ? 1 : 0}')"
    done
done

text=$("$MPILENS" scaling sweep/ranks-* 2>&1)
echo "$text"
check_eq "text: every line fits 80 columns" "" "$(awk 'length($0) > 80' <<<"$text")"
check_match "text: the heading names the program and the kind" "$text" '^Strong \(the same total work\), against 1 rank$'
check_match "text: one column per rank count" "$text" '^ranks +1 +2 +4 +8 *$'
check_match "text: the bands said in words" "$text" "^0.8 and above: good \(POP's green\); ~ 0.6 to 0.8: fair; ! below 0.6: poor.$"
# the factors below 0.8 at the first rank count where one is (load balance at 4 ranks, 0.74
# by construction; communication efficiency is 0.87 there, computation scalability 0.90)
first=$(awk -F, '$1 ~ /^(load_balance|communication_efficiency|computation_scalability)$/ && $3 < 0.8 {print $2}' table.csv | sort -n | head -n 1)
check_eq "the first rank count with a factor below 0.8 is 4 (load balance)" 4 "$first"
check_eq "text: the factors that fall first, named with their values" \
    "Read top to bottom: below 0.8 first, at 4 ranks: $(awk -F, -v p=4 'BEGIN {n["load_balance"] = "load balance"
        n["communication_efficiency"] = "communication efficiency"; n["computation_scalability"] = "computation scalability"}
        $2 == p && ($1 in n) && $3 < 0.8 {printf "%s%s %.3f", s, n[$1], $3; s = ", "}' table.csv)" \
    "$(grep -A1 'below 0.8 first' <<<"$text" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
check_match "text: what is missing is said (no replay yet)" "$text" '^Serialization and transfer: trace the runs'
check_match "text: the hardware counters, said" "$text" '^Instructions and IPC scalability: not recorded; '

# The 8-rank run analyzed: serialization (the chain: the communication efficiency again)
# and transfer (near 1: the ideal network removes little of waits that are sleeps).
timeout 300 "$MPILENS" analyze sweep/ranks-8 > analyze.log 2>&1
check_eq "analyze of the 8-rank run: status 0" 0 $?
"$MPILENS" scaling sweep/ranks-* --csv > analyzed.csv
check_eq "analyzed: serialization and transfer at 8 ranks only" "serialization_efficiency,8 transfer_efficiency,8" \
    "$(awk -F, '$1 ~ /^(serialization|transfer)/ {print $1 "," $2}' analyzed.csv | tr '\n' ' ' | sed 's/ $//')"
ser=$(awk -F, '$1 == "serialization_efficiency" {print $3}' analyzed.csv)
tra=$(awk -F, '$1 == "transfer_efficiency" {print $3}' analyzed.csv)
check_eq "serialization at 8 ranks ($ser) within 0.05 of $(expected communication_efficiency 8)" 1 \
    "$(awk -v a="$ser" -v b="$(expected communication_efficiency 8)" 'BEGIN {d = a - b; print (d < 0.05 && d > -0.05) ? 1 : 0}')"
check_eq "transfer at 8 ranks ($tra) within 0.05 of 1" 1 "$(awk -v a="$tra" 'BEGIN {print (a > 0.95 && a < 1.05) ? 1 : 0}')"
check_match "analyzed: the text shows the rows" "$("$MPILENS" scaling sweep/ranks-*)" '^   serialization +- +- +- +0\.[0-9]{3}'

# --weak: the speedup scaled by the rank ratio; --ref: the reference's column is 1.
weak=$("$MPILENS" scaling sweep/ranks-* --weak --csv)
check_eq "--weak: speedup at 8 = 8 x the strong one" \
    "$(awk -F, '$1 == "speedup" && $2 == 8 {printf "%.3f", 8 * $3}' table.csv)" \
    "$(awk -F, '$1 == "speedup" && $2 == 8 {printf "%.3f", $3}' <<<"$weak")"
check_eq "--weak: computation scalability compares useful time per rank" \
    "$(awk -F, '$1 == "computation_scalability" && $2 == 2 {printf "%.3f", 2 * $3}' table.csv)" \
    "$(awk -F, '$1 == "computation_scalability" && $2 == 2 {printf "%.3f", $3}' <<<"$weak")"
ref=$("$MPILENS" scaling sweep/ranks-* --ref sweep/ranks-2 --csv)
check_eq "--ref: the 2-rank run's speedup and computation scalability are 1" "1.000000 1.000000" \
    "$(awk -F, '($1 == "speedup" || $1 == "computation_scalability") && $2 == 2 {print $3}' <<<"$ref" | tr '\n' ' ' | sed 's/ $//')"

json=$("$MPILENS" scaling sweep/ranks-* --json)
check_eq "--json: four columns, each with its run's page" "1 2 4 8 / 4" \
    "$(/usr/bin/python3 -c '
import json, sys, os
d = json.loads(sys.argv[1])
print(" ".join(str(c["ranks"]) for c in d["columns"]), "/", sum(os.path.isfile(c["page"]) for c in d["columns"]))' "$json")"

# Refusals: one line each, status 2.
timeout 120 "$MPILENS" run -m profile -o ring -- $MPIRUN -np 2 "$APPS/ring" 1 > /dev/null 2>&1
out=$("$MPILENS" scaling sweep/ranks-1 ring 2>&1); status=$?
check_eq "runs of two programs: status 2, one line" "2 1" "$status $(wc -l <<<"$out")"
check_match "... naming both" "$out" '^mpilens: scaling: the runs are of different programs: sweep/ranks-1 \(.*scaling_app\), ring \(.*ring\); give runs of one program, or --force$'
check_eq "--force: compared" 0 "$("$MPILENS" scaling sweep/ranks-1 ring --force > /dev/null 2>&1; echo $?)"
out=$("$MPILENS" scaling sweep/ranks-2 sweep/ranks-2 2>&1); status=$?
check_eq "two runs at one rank count: refused" "2" "$status"
check_match "... saying so" "$out" 'both ran on 2 ranks; give one run per rank count$'
out=$("$MPILENS" scaling sweep/ranks-1 nowhere 2>&1); status=$?
check_eq "a run that is not there: status 2, one line naming it" "2 mpilens: scaling: nowhere: no such run (give a run's directory)" "$status $out"
out=$("$MPILENS" run --ranks 1,2 -- $MPIRUN -np 2 "$APPS/scaling_app" 2>&1); status=$?
check_eq "run --ranks without {} in the line: refused before any job" "2 1" "$status $(wc -l <<<"$out")"
out=$("$MPILENS" run --ranks 1,2 -m monitor -- $MPIRUN -np {} "$APPS/scaling_app" 2>&1); status=$?
check_match "run --ranks without the profile: refused, saying what to add" "$status $out" \
    '^2 mpilens: run --ranks: the scaling table needs the profile module; add it: -m profile,monitor$'

# The page: the efficiencies as lines, the table, each column linked to its run's page.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    dom=$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$WORK/chromium" --dump-dom "file://$WORK/sweep/scaling.html" 2> /dev/null)
    check_match "page: chromium renders it" "$dom" '<title>mpilens: scaling</title>'
    check_eq "page: a line per efficiency (global, parallel, balance, communication, computation)" 5 \
        "$(grep -o 'class="metric" data-metric="[a-z_]*"' <<<"$dom" | grep -vc speedup)"
    check_eq "page: each rank count links to its run's page" 4 \
        "$(grep -oE "href=\"$WORK/sweep/ranks-[1248]/report.html\"" <<<"$dom" | sort -u | wc -l)"
    check_match "page: the table's cells coloured by band" "$dom" '<td class="poor">0\.[0-9]{3}</td>'
else
    echo "note: chromium not installed: the page is not checked in a browser"
fi

# The site store: the same runs' records, ingested, give the same table (the records' own
# figures: `mpilens scaling --summary` reads them from the directories).
mkdir spool
for p in 1 2 4 8; do cp sweep/ranks-$p/summary.json spool/run$p.summary.json; done
"$MPILENS" site init --store site.db 2> /dev/null
"$MPILENS" site ingest spool --store site.db 2> /dev/null
site_csv=$("$MPILENS" site scaling scaling_app --store site.db --csv 2> site.err)
check_eq "site scaling: status 0" 0 $?
check_eq "site scaling: the table of the directories' records, exactly" \
    "$("$MPILENS" scaling --summary sweep/ranks-* --csv)" \
    "$(grep -vE '^(jobs|parallel_efficiency_(lowest|highest)),' <<<"$site_csv")"
check_eq "site scaling: one job a rank count" "1 1 1 1" \
    "$(awk -F, '$1 == "jobs" {print $3}' <<<"$site_csv" | tr '\n' ' ' | sed 's/ $//')"
check_match "site scaling: says what it read" "$(cat site.err)" '^mpilens: site scaling: 4 jobs of scaling_app in 4 rank counts read from site.db$'
check_eq "site scaling: the text fits 80 columns" "" \
    "$("$MPILENS" site scaling scaling_app --store site.db 2>/dev/null | awk 'length($0) > 80')"
out=$("$MPILENS" site scaling nothing --store site.db 2>&1); status=$?
check_eq "site scaling of an application without jobs: status 1, one line" "1 1" "$status $(wc -l <<<"$out")"

# Python: the same table as a DataFrame.
check_eq "python: mpilens.scaling gives the CSV's values" \
    "$(awk -F, '$1 == "global_efficiency" {printf "%.4f ", $3}' table.csv | sed 's/ $//')" \
    "$(MPILENS_CLI=$MPILENS PYTHONPATH="$SRC/python" /usr/bin/python3 -c "
import mpilens
t = mpilens.scaling(['sweep/ranks-1', 'sweep/ranks-2', 'sweep/ranks-4', 'sweep/ranks-8'])
print(' '.join('%.4f' % v for v in t.loc['global_efficiency']))")"
finish
