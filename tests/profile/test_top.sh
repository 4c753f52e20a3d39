# SPDX-License-Identifier: BSD-3-Clause
# test_top.sh: `mpilens top` on real runs of tests/apps/phases_app.c (4 ranks: 3 s of a
# ring of Sendrecv on the world, then 3 s of Allreduce on a split communicator) started with
# `mpilens run --snapshot 1`. The JSON lines show phase 1's operation leading early and
# phase 2's later, and their per-interval bytes add up to the final database's total; the
# terminal view, driven in tmux, shows the rank bars and the table and quits on q; after
# the job, --once shows the final figures; --live runs the view beside the job.
source "$(dirname "$0")/../core/lib.sh"

# start NAME MODULES: a phases_app run into NAME in the background
start() {
    timeout 120 "$MPILENS" run -m "$2" --snapshot 1 -o "$1" -- $MPIRUN -np 4 \
        "$APPS/phases_app" 3 > "$1.log" 2>&1 &
    for _ in $(seq 100); do [ -d "$1" ] && break; sleep 0.1; done
}
# leader LINE: the operation with the most time in a JSON line's interval
leader() {
    /usr/bin/python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(d["ops"][0]["op"] if d["ops"] and d["ops"][0]["time"] > 0 else "-")' "$1"
}

start phases profile,monitor
timeout 90 "$MPILENS" top phases --json > top.jsonl 2> top.err
check_eq "top --json: exits 0 when the job is over" "0 " "$? $(cat top.err)"
wait
check_match "the run ended well" "$(cat phases.log)" '^phases_app ok$'
leaders=$(while read -r l; do leader "$l"; done < top.jsonl | grep -v '^-$' | uniq | tr '\n' ' ')
check_match "phase 1's Sendrecv leads early, phase 2's Allreduce later" "$leaders" \
    '^([A-Za-z_]+ )?Sendrecv (Allreduce )+$'
check_eq "the last line is the final state" "true" \
    "$(tail -1 top.jsonl | /usr/bin/python3 -c 'import json, sys; print(str(json.load(sys.stdin)["ended"]).lower())')"
total=$("$MPILENS" report phases --csv | awk -F, 'NR > 1 && $4 != "Init" && $4 != "Finalize" \
    { s += $13 } END { print s }')
check_eq "the intervals' bytes add up to the final database's total" "$total $total" \
    "$(/usr/bin/python3 -c 'import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
print(sum(l["bytes"] for l in lines), lines[-1]["bytes_total"])' top.jsonl)"
check_match "every rank is reported as ended at the end" "$(tail -1 top.jsonl)" \
    '"ranks":\[\{"rank":0,"state":"ended".*\{"rank":3,"state":"ended"'
# the same figures from the same database; top prints 4 decimals, so they agree within its
# rounding (0.00005), not to 2 decimals of each: 0.855049 and 0.8550 once rounded to 0.86
# and 0.85 (MPICH 4.0, a full run)
check_eq "the final line's run efficiencies are the report's (within top's 4 decimals)" "True True" \
    "$(tail -1 top.jsonl | /usr/bin/python3 -c 'import json, sys
l = json.load(sys.stdin)
report = {f[0]: f[1] for f in (line.split(",") for line in sys.argv[1].splitlines()[1:])
          if len(f) == 3 and f[2] == "run"}
print(abs(l["load_balance_total"] - float(report["load_balance"])) <= 0.00006,
      abs(l["communication_efficiency_total"] - float(report["communication_efficiency"])) <= 0.00006)' \
        "$("$MPILENS" report phases --efficiency --csv)")"
check_match "the matrix cells of the ring are in the JSON" "$(cat top.jsonl)" \
    '"cells":\[\{"src":0,"dst":1,"bytes":[0-9]+'
check_match "after the job, --once: one final line" "$("$MPILENS" top phases --once --json)" \
    "^\\{\"t\":[0-9.]+,\"interval\":[0-9.]+,\"ended\":true,.*\"bytes_total\":$total,"

# the terminal view in tmux: rank bars, the table, q quits
if command -v tmux > /dev/null; then
    start screen profile,monitor
    session=mpilens-top-$$
    tmux new-session -d -s "$session" -x 80 -y 24 "$MPILENS top screen; echo TOP-ENDED; sleep 60"
    screen=""
    for _ in $(seq 60); do
        screen=$(tmux capture-pane -p -t "$session")
        grep -q '^ *3 [#.]* *[0-9]*% ( *[0-9]*%) running' <<<"$screen" && break
        sleep 0.25
    done
    check_match "tmux: a bar per rank" "$screen" '^ +0 [#.]{10,} +[0-9]+% \( *[0-9]+%\) running$'
    check_match "tmux: the table of operations" "$screen" \
        '^communicator operation +\[time\] s +calls +bytes +whole run s$'
    check_match "tmux: the keys" "$screen" '^keys: t time  c calls  b bytes  p pause  q quit'
    check_eq "tmux: it fits 80 columns" "" "$(awk 'length > 80' <<<"$screen")"
    tmux send-keys -t "$session" b
    sleep 1
    check_match "tmux: b sorts by bytes" "$(tmux capture-pane -p -t "$session")" '\[bytes\]'
    tmux send-keys -t "$session" q
    for _ in $(seq 40); do
        tmux capture-pane -p -t "$session" | grep -q TOP-ENDED && break
        sleep 0.25
    done
    check_match "tmux: q quits" "$(tmux capture-pane -p -t "$session")" '^TOP-ENDED$'
    tmux kill-session -t "$session" 2> /dev/null
    wait
    # --live: the view beside the job it starts
    tmux new-session -d -s "$session" -x 80 -y 24 \
        "$MPILENS run --live -m profile -o live -- $MPIRUN -np 4 $APPS/phases_app 1; echo RUN-STATUS=\$?; sleep 60"
    for _ in $(seq 120); do
        tmux capture-pane -p -t "$session" | grep -q 'job ended: final figures' && break
        sleep 0.25
    done
    check_match "--live: the view shows the job's final figures" \
        "$(tmux capture-pane -p -t "$session")" '^mpilens top  phases_app  t=[0-9.]+ s  \[job ended: final figures\]'
    tmux send-keys -t "$session" q
    for _ in $(seq 40); do
        tmux capture-pane -p -t "$session" | grep -q RUN-STATUS && break
        sleep 0.25
    done
    out=$(tmux capture-pane -p -t "$session")
    check_match "--live: then the run's own lines and status" "$out" '^RUN-STATUS=0$'
    check_match "--live: the job's output went to DIR/job.log" "$(cat live/job.log)" \
        '^phases_app ok$'
    tmux kill-session -t "$session" 2> /dev/null
else
    echo "SKIP (part): tmux not installed"
fi

# monitor alone; bad input
timeout 120 "$MPILENS" run -m monitor -o mon -- $MPIRUN -np 4 "$APPS/phases_app" 1 > mon.log 2>&1
check_match "monitor alone: the final bytes are the matrix's" \
    "$("$MPILENS" top mon --once --json)" '"ended":true,.*"bytes_total":[1-9][0-9]*,'
refused "top of no directory" \
    "mpilens: top: nothere: not a run directory (mpilens run -o DIR names it)" \
    "$MPILENS" top nothere
check_match "--help" "$("$MPILENS" top --help)" '^usage: mpilens top DIR \[options\]$'
finish
