# SPDX-License-Identifier: BSD-3-Clause
# test_report.sh: `mpilens report` read back from a real run's database: a golden CSV
# (times cut out), the text view, every filter (bound parameters: an injection attempt
# matches nothing), --top/--sort, the HTML page, and bad input.
source "$(dirname "$0")/../core/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

"$MPILENS" run -m profile -o run -- $MPIRUN -np 4 "$APPS/profile_app" "$WORK/f.out" > run.log 2>&1
check_eq "golden CSV (times removed)" "$(cat "$here/expected_report.csv")" \
    "$("$MPILENS" report run/mpilens.db --csv --sort volume | cut -d, -f1-9,13)"

text=$("$MPILENS" report run)
check_has "text: run section" "$text" "  processes       4"
check_has "text: communicator header" "$text" "== Communicator d0.2  size 4  ranks [0,1,2,3]  volume 800.0 KiB"
check_match "text: row (calls, max and average rank time, longest call, volume)" "$text" \
    '^  Bcast +65537-256K +2 +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} +800\.0 KiB$'
check_has "text: the columns explained, the division of CALLS named" "$text" \
    "CALLS: summed over ranks; a collective counted once (divided by the communicator's"
check_eq "the longest single call is never longer than a rank's total" 0 \
    "$("$MPILENS" report run --csv | tail -n +2 | awk -F, '$14 > $10 + 1e-9' | wc -l)"
# the MPI share leaves MPI_Init and MPI_Finalize out (issue 32), of ranks x the run's length
# T, the longest rank's (issue 76: one definition in every view; docs/efficiency.md)
share=$(sqlite3 run/mpilens.db "SELECT printf('%.2f', 100 * SUM(r.mpi_time - i.t) / (COUNT(*) * MAX(r.net_time - i.t)))
    FROM ranks r JOIN (SELECT p.rank, SUM(p.time) AS t FROM profile p JOIN operations o
    ON o.id = p.operation_id WHERE o.operation IN ('Init', 'Init_thread', 'Finalize')
    GROUP BY p.rank) i ON i.rank = r.rank")
check_match "text: MPI share without Init and Finalize ($share %)" "$text" \
    "^  MPI share       $share % of ranks x the run, rank [0-3] most: [0-9.]+ % of the run$"
check_match "text: Init and Finalize on a line of their own" "$text" \
    '^  Init\+Finalize   max [0-9]+\.[0-9]{6} s \(rank [0-3]\), average [0-9]+\.[0-9]{6} s, outside the run$'
check_has "text: mixed entry" "$text" "== Communicator mixed  size 0  ranks []  volume 0 B"

csv() { "$MPILENS" report run --csv "$@" | tail -n +2 | cut -d, -f1,4,9,13; }
check_eq "--comm s0.1" "s0.1,Allreduce,5,80000
s0.1,Put,2,128
s0.1,Isend,2,32
s0.1,Irecv,2,32
s0.1,Win_fence,4,0" "$(csv --comm s0.1 --sort volume)"
check_eq "--kind io" "W0.0,File_write_at,4,1024" "$(csv --kind io --sort volume | head -1)"
check_eq "--rank 2: that rank's own calls" "W0.0,Send,3,3072" "$(csv --rank 2 --op Send)"
check_eq "--op with the MPI_ prefix" "$(csv --op Allreduce)" "$(csv --op MPI_Allreduce)"
check_eq "--bucket 4" "d0.2,Bcast,2,819200" "$(csv --bucket 4)"
check_eq "--top 2 --sort volume" "d0.2,Bcast,2,819200
s0.1,Allreduce,5,80000" "$(csv --top 2 --sort volume)"
check_eq "a filter is a bound parameter, not SQL" "" "$(csv --comm "W0.0' OR '1'='1")"

"$MPILENS" report run --html page.html > html.log
check_eq "--html says where" "mpilens: HTML report in page.html" "$(tail -1 html.log)"
check_eq "HTML page: the run's and the ranks' time bars, the sizes, and d0.2's Bcast" "3 1" \
    "$(grep -c '<svg' page.html) $(grep -c '<td class="t">d0.2</td><td data-v="4">4</td><td class="t">Bcast</td>' page.html)"

# Bad input: one line, exit 2.
refused "missing file" "mpilens: report: $WORK/none.db: no such database; give the mpilens.db of a run (mpilens run prints where it is)" "$MPILENS" report "$WORK/none.db"
echo "hello" > text.db
refused "not a database" "mpilens: report: text.db: not an mpilens run database; give the mpilens.db that \`mpilens run\` wrote" "$MPILENS" report text.db
sqlite3 other.db "CREATE TABLE t (x)"
refused "another SQLite file" "mpilens: report: other.db: not an mpilens run database; give the mpilens.db that \`mpilens run\` wrote" "$MPILENS" report other.db
refused "--kind" "mpilens: report: --kind 'network': use p2p, coll, rma or io" "$MPILENS" report run --kind network
refused "--sort" "mpilens: report: --sort 'speed': use time, calls or volume" "$MPILENS" report run --sort speed
refused "--top" "mpilens: report: --top 'x': give a positive number of rows" "$MPILENS" report run --top x
refused "unknown option" "mpilens: report: unknown or incomplete option '--frobnicate'; see \`mpilens report --help\`" "$MPILENS" report run --frobnicate
refused "no database" "mpilens: report: no database given; write mpilens report RUN_DIR/mpilens.db" "$MPILENS" report
"$MPILENS" run -m profile -o tagged -- $MPIRUN -np 2 "$APPS/ring" 1 '<script>alert(1)</script>' > /dev/null 2>&1
"$MPILENS" report tagged --html tagged.html > /dev/null
check_eq "--html escapes what the run recorded (an argument <script>...): the page's own script only" \
    "1 1" "$(grep -c '<script>' tagged.html) $(grep -c '&lt;script&gt;alert(1)&lt;/script&gt;' tagged.html)"
out=$("$MPILENS" report run --csv --html /proc/x.html 2>&1 >/dev/null); status=$?
check_eq "unwritable --html: exit 2" "2" "$status"
check_eq "unwritable --html: message" "mpilens: report: --html /proc/x.html: cannot write the file (No such file or directory); choose a writable path" "$(tail -1 <<<"$out")"
finish
