# SPDX-License-Identifier: BSD-3-Clause
# test_one_truth.sh: one run, one number for one thing in every view (issue 76;
# docs/efficiency.md, The MPI share). halo2d (examples/halo2d.c, 4 ranks, -m profile):
# its MPI share in the report's text and CSV, the page (as Chromium renders it), diff,
# the run's summary.json and Python are the same figure (the ranks' MPI time, MPI_Init and
# MPI_Finalize outside, over ranks x the run's length), as computed here from the
# database itself; MPI_Init heads no ranking.
source "$(dirname "$0")/../core/lib.sh"
out=$(timeout 120 "$MPILENS" run -m profile -o halo -- $MPIRUN -np 4 "$BUILD/examples/halo2d" 40 2>&1)
check_match "halo2d ran" "$out" "^mpilens: results in .*halo"
# the figure from the database: ranks' MPI time less Init and Finalize / (ranks x T)
truth=$(sqlite3 halo/mpilens.db "SELECT printf('%.1f', 100 * SUM(r.mpi_time - i.t) /
    (COUNT(*) * MAX(r.net_time - i.t))) FROM ranks r JOIN (SELECT p.rank, SUM(p.time) AS t
    FROM profile p JOIN operations o ON o.id = p.operation_id
    WHERE o.operation IN ('Init', 'Init_thread', 'Finalize') GROUP BY p.rank) i
    ON i.rank = r.rank")
pct() { awk -v v="$1" 'BEGIN { printf "%.1f", 100 * v }'; }
report=$("$MPILENS" report halo | sed -n 's/^  MPI share  *\([0-9.]*\) % of ranks x the run.*/\1/p')
csv=$("$MPILENS" report halo --efficiency --csv | awk -F, '$1 == "mpi_share" {print $2}')
record=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mpi_share"])' halo/summary.json)
py=$(PYTHONPATH="$SRC/python" /usr/bin/python3 -c '
import sys, mpilens
e = mpilens.open(sys.argv[1]).efficiency
print(float(e[(e.metric == "mpi_share") & (e.phase == "run")].value.iloc[0]))' halo)
diff=$("$MPILENS" diff halo halo 2>/dev/null | sed -n 's/^  MPI share  *\([0-9.]*\) %.*/\1/p')
check_eq "report text: the MPI share" "$truth" "$(awk -v v="$report" 'BEGIN { printf "%.1f", v }')"
check_eq "report CSV: the MPI share" "$truth" "$(pct "$csv")"
check_eq "summary.json: the MPI share" "$truth" "$(pct "$record")"
check_eq "Python: the MPI share" "$truth" "$(pct "$py")"
check_eq "diff: the MPI share" "$truth" "$diff"
page=halo/report.html
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    page=$WORK/page.dom
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$WORK/chromium" --dump-dom "file://$WORK/halo/report.html" \
        >"$page" 2>/dev/null
fi
check_eq "the page (Chromium): the MPI share" "$truth" \
    "$(grep -o 'MPI share</td><td[^>]*>[0-9.]* %' "$page" | sed 's/.*>\([0-9.]*\) %/\1/')"
# MPI_Init heads no ranking: not in --callsites' table, nor report --top, nor the findings
check_lacks "report --top 3: no MPI_Init" "$("$MPILENS" report halo --top 3 | sed -n '/== Top/,/^$/p')" " Init "
check_match "report --callsites: a program's call first" \
    "$("$MPILENS" report halo --callsites | sed -n 3p)" 'halo2d\.c:[0-9]+ +(Sendrecv|Allreduce|Bcast|Reduce) '
check_lacks "the page's findings: no MPI_Init" \
    "$(sed -n '/<ol class="findings">/,/<\/ol>/p' "$page")" "MPI_Init"
# the key to the generated names, in the report and on the page (halo2d makes its
# communicators with MPI_Cart_create and MPI_Cart_sub)
check_match "report: the key to the names shown" "$("$MPILENS" report halo)" \
    "^  a = MPI_Cart_create, b = MPI_Cart_sub, W = MPI_COMM_WORLD\.$"
check_match "the page: the key to the names" "$(grep -o '<p class="note" id="names">[^<]*' "$page")" \
    "a = MPI_Cart_create, b = MPI_Cart_sub"
finish
