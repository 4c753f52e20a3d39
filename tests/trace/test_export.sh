# test_export.sh: `mpilens export RUN --chrome` on a real trace: valid JSON with one row per
# rank, every message an arrow (send matched to receive), a late sender marked; and
# corrupted archives (truncated event file, flipped bytes, truncated anchor, 30 random
# corruptions): one line, exit 2, never a crash or a hang.
source "$(dirname "$0")/../core/lib.sh"
command -v otf2-print > /dev/null || { echo "SKIP: otf2-tools not installed"; exit 77; }
[ -f "$BUILD/lib/mpilens/trace.so" ] || { echo "SKIP: trace module not built (no OTF2)"; exit 77; }

"$MPILENS" run -m trace -o run -- $MPIRUN -np 4 "$APPS/ring" 3 > run.log 2>&1
out=$("$MPILENS" export run --chrome ring.json)
check_match "export says where" "$out" '^mpilens: ring.json written \([0-9]+ events of 4 ranks\)'
summary=$(python3 - <<'PY'
import json, collections
events = json.load(open("ring.json"))["traceEvents"]
kinds = collections.Counter(e["ph"] for e in events)
rows = sorted({e["tid"] for e in events if e["ph"] == "B"})
late = [e for e in events if e.get("name") == "Late Sender"]
print(kinds["s"], kinds["f"], kinds["B"] == kinds["E"], rows, len(late) > 0)
PY
)
check_eq "12 message arrows matched, slices balanced, 4 rows, a Late Sender marked" "12 12 True [0, 1, 2, 3] True" "$summary"

corrupt() { rm -rf "$1" && cp -r run "$1"; }
corrupt trunc && truncate -s 100 trunc/trace/traces/1.evt
refused "truncated event file" "mpilens: export: trunc/trace/traces.otf2: the events are truncated or corrupt; the output stops there" "$MPILENS" export trunc --chrome x.json
corrupt anchor && truncate -s 30 anchor/trace/traces.otf2
refused "truncated anchor" "mpilens: export: anchor/trace/traces.otf2: not a readable OTF2 archive (truncated or corrupt); trace the run again" "$MPILENS" export anchor --chrome x.json
refused "no trace" "mpilens: export: $WORK/nothing/trace/traces.otf2: no trace here; run with the trace module (mpilens run -m trace ...)" "$MPILENS" export "$WORK/nothing" --chrome x.json
# Regression (found by the loop below, seed 14 on an MPICH trace): an anchor whose rank
# count was corrupted to ~10^19 made export spin in OTF2 selecting locations. The rank count
# is now checked against the event files first.
corrupt gap && rm gap/trace/traces/3.evt
refused "an event file missing" "mpilens: export: gap/trace/traces/3.evt: missing, but the archive has 4 ranks; trace the run again" "$MPILENS" export gap --chrome x.json
crashes=0
for seed in $(seq 1 30); do
    corrupt fuzz
    python3 - "$seed" <<'PY'
import glob, random, sys
random.seed(int(sys.argv[1]))
files = sorted(glob.glob("fuzz/trace/**/*", recursive=True))
files = [f for f in files if not f.endswith("/traces")]
path = random.choice([f for f in files if "." in f.rsplit("/", 1)[-1]])
data = bytearray(open(path, "rb").read())
for _ in range(random.randint(1, 8)):
    if data:
        data[random.randrange(len(data))] = random.randrange(256)
if random.random() < 0.3:
    data = data[: random.randrange(len(data) + 1)]
open(path, "wb").write(bytes(data))
PY
    timeout 20 "$MPILENS" export fuzz --chrome fuzz.json > /dev/null 2>&1
    status=$?
    if [ $status -ge 124 ]; then crashes=$((crashes + 1)); echo "seed $seed: status $status"; fi
done
check_eq "30 corrupted archives: no crash, no hang" "0" "$crashes"
finish
