# SPDX-License-Identifier: BSD-3-Clause
# test_page.sh: the run's page (docs/page.md) and the diff page, opened in headless Chromium
# inside a 1280-pixel-wide frame of a checking page (page_check.html beside this script)
# that measures what a person would see: the sections present, the heatmap's cells and
# their titles, nothing wider than the window, no empty header cell, a sortable table that
# sorts, no script or image from the data. Chromium's console must stay clean.
#   full:     a 4-rank ring under profile,monitor,trace, analyzed, exported: every section;
#             the heatmap has 16 cells with the ring's exact bytes; an argument that is
#             markup stays text;
#   demo:     the demo's program (halo2d, rank 0 with more work): three findings;
#   imbalance: rank 0 sleeping twice as long before each barrier: the imbalance and the
#             barrier are among the findings;
#   profile-only and monitor-only runs: only their sections;
#   1024 ranks: a database as such a run leaves it (tests/tools/large_run_db.c, written by
#             src/db's writers): the page stays under 5 MB and its DOM bounded;
#   diff:     `mpilens diff --html` of two rings: no empty header cell, bars and heatmap.
source "$(dirname "$0")/../core/lib.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: chromium not installed"; exit 77; }
cp "$SRC/tests/profile/page_check.html" check.html

# look PAGE: the checking page's JSON result for PAGE (a path under $WORK) into a file, whose
# name it prints; the browser's console lines go to console.log
look() {
    look_page "$1" > "$WORK/result-${1//\//-}.json"
    echo "$WORK/result-${1//\//-}.json"
}
look_page() {
    timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$WORK/chromium" --allow-file-access-from-files --enable-logging=stderr \
        --v=0 --window-size=1400,900 --dump-dom "file://$WORK/check.html#file://$WORK/$1" \
        2> console.log | grep -o 'RESULT {.*}' | sed 's/^RESULT //' |
        /usr/bin/python3 -c 'import html, sys; print(html.unescape(sys.stdin.read()), end="")'
}
# field RESULT NAME: one field of a result
field() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }
console_clean() { check_eq "$1: no console message" "" "$(grep -F 'CONSOLE' console.log | head -3)"; }
fits() { check_eq "$1: nothing wider than the 1280-pixel window" "0 yes" \
    "$(field "$2" overflow) $([ "$(field "$2" right)" -le "$(field "$2" width)" ] && echo yes || echo "no: $(field "$2" right) > $(field "$2" width)")"; }

evil='<script>document.title="pwned"</script><img src=x onerror=document.title="pwned2">'
out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o full -- $MPIRUN -np 4 \
    "$APPS/ring" 2 "$evil" 2>&1)
check_has "full: the application ran" "$out" "ring ok: 4 ranks, 2 rounds"
check_has "full: mpilens run names its page" "$out" \
    "mpilens: the run's page: $WORK/full/report.html (open it in a browser)"
timeout 180 "$MPILENS" analyze full > analyze.log 2>&1
timeout 60 "$MPILENS" export full --chrome full/trace.json > export.log 2>&1
"$MPILENS" report full --html full/report.html > /dev/null
r=$(look full/report.html)
check_eq "full: every section, in order" \
    "summary findings efficiency ranks communicators sizes callsites matrix waits trace" \
    "$(field "$r" sections)"
console_clean full
fits full "$r"
check_eq "full: the ring's heatmap has 16 cells" 16 "$(field "$r" cells)"
expected=$(for s in 0 1 2 3; do for d in 0 1 2 3; do
    if [ $d -eq $(((s + 1) % 4)) ]; then echo "rank $s to rank $d: 2048 bytes, 2 messages"
    else echo "rank $s to rank $d: 0 bytes, 0 messages"; fi; done; done | paste -sd'|')
check_eq "full: each cell's title has its exact bytes" "$expected" "$(field "$r" titles)"
check_eq "full: no script or image came from the data; the title is the page's" \
    "1 0 mpilens report" "$(field "$r" scripts) $(field "$r" images) $(field "$r" title)"
check_eq "full: the argument is shown as text" "$APPS/ring 2 $evil" "$(field "$r" command)"
check_eq "full: no empty header cell" 0 "$(field "$r" emptyth)"
check_eq "full: the communicator table sorts by a click" yes "$(field "$r" sorted)"
check_eq "full: one bar per rank" 4 "$(field "$r" rankbars)"
check_eq "full: the trace's export is linked" "trace.json" "$(field "$r" tracelink)"
check_match "full: the wait states as a tree" "$(field "$r" tree)" '^Time: [0-9.]+ s'

# the demo's program: an imbalance, the halo exchange, its waits
out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o demo -- $MPIRUN -np 4 \
    "$BUILD/examples/halo2d" 30 2>&1)
check_match "demo: ran" "$out" '^halo2d: 4 ranks' 
timeout 180 "$MPILENS" analyze demo > analyze-demo.log 2>&1
"$MPILENS" report demo --html demo/report.html > /dev/null
r=$(look demo/report.html)
console_clean demo
fits demo "$r"
check_eq "demo: every section but the trace's export link (the demo's own step)" \
    "summary findings efficiency ranks communicators sizes callsites matrix waits trace" \
    "$(field "$r" sections)"
check_eq "demo: three findings" 3 "$(field "$r" findings)"
# a program of known imbalance (computing is sleeping: as long on a loaded machine): rank 0
# computes twice as long before each barrier; the imbalance and the barrier are the findings
out=$(timeout 120 "$MPILENS" run -m profile -o imbalance -- $MPIRUN -np 4 \
    "$APPS/efficiency_app" imbalance 2>&1)
check_has "imbalance: ran" "$out" "efficiency_app imbalance ok"
r=$(look imbalance/report.html)
# (a third when MPI_Init is slow, on a loaded machine: a profile gives three candidates)
check_match "imbalance: two or three findings" "$(field "$r" findings)" '^[23]$' 
check_match "imbalance: the load imbalance, rank 0 the busiest" "$(field "$r" findingtext)" \
    'Load imbalance: load balance 0\.(5[6-9]|6[0-9]); rank 0 computes'
check_match "imbalance: the barrier, and where it is" "$(field "$r" findingtext)" \
    'MPI_Barrier on W0\.0 \(4 ranks\): [0-9.]+ s over ranks; most at efficiency_app\.c:[0-9]+ in imbalance'

# each section only with its data
timeout 120 "$MPILENS" run -m profile -o profonly -- $MPIRUN -np 4 "$APPS/ring" 2 > /dev/null 2>&1
r=$(look profonly/report.html)
check_eq "profile only: its sections, no matrix, waits or trace" \
    "summary findings efficiency ranks communicators sizes callsites" "$(field "$r" sections)"
console_clean "profile only"
timeout 120 "$MPILENS" run -m monitor -o mononly -- $MPIRUN -np 4 "$APPS/ring" 2 > /dev/null 2>&1
r=$(look mononly/report.html)
check_eq "monitor only: summary, findings and the matrix" "summary findings matrix" \
    "$(field "$r" sections)"
check_eq "monitor only: 16 cells" 16 "$(field "$r" cells)"
console_clean "monitor only"

# 1024 ranks: ranks grouped, the matrix in blocks; the size and the DOM stay bounded
"$APPS/large_run_db" big 1024
"$MPILENS" report big --html big/report.html > /dev/null
bytes=$(stat -c %s big/report.html)
check_eq "1024 ranks: the page is under 5 MB ($bytes bytes)" yes "$([ "$bytes" -lt 5000000 ] && echo yes || echo no)"
r=$(look big/report.html)
console_clean "1024 ranks"
fits "1024 ranks" "$r"
check_eq "1024 ranks: 64 bars of 16 ranks each" "64 ranks 0-15" \
    "$(field "$r" rankbars) $(field "$r" firstbar)"
check_eq "1024 ranks: a heatmap of 64 x 64 groups" 4096 "$(field "$r" cells)"
check_has "1024 ranks: a group's exact bytes" "$(field "$r" titles | tr '|' '\n')" \
    "ranks 0-15 to ranks 0-15: 12288000 bytes, 1500 messages"
elements=$(field "$r" elements)
check_eq "1024 ranks: at most 20,000 elements to lay out ($elements)" yes \
    "$([ "$elements" -le 20000 ] && echo yes || echo no)"
echo "1024 ranks: $bytes bytes, $elements elements, laid out in $(field "$r" ms) ms"

# the diff page: two rings of different lengths
timeout 120 "$MPILENS" run -m profile,monitor -o ring4 -- $MPIRUN -np 4 "$APPS/ring" 4 > /dev/null 2>&1
"$MPILENS" diff full ring4 --html diff.html > /dev/null 2>&1
r=$(look diff.html)
console_clean diff
fits diff "$r"
check_eq "diff: no empty header cell" 0 "$(field "$r" emptyth)"
check_eq "diff: the heatmap of the changes has 16 cells" 16 "$(field "$r" cells)"
check_has "diff: a changed cell's title has its bytes" "$(field "$r" titles | tr '|' '\n')" \
    "0 -> 1: +2048 bytes"
check_eq "diff: bars of the largest changes" yes "$([ "$(field "$r" bars)" -gt 0 ] && echo yes || echo no)"
finish
