# test_fuzz_inputs.sh: every input kept in fuzz/regressions/ (what the libFuzzer targets
# found, see scripts/fuzz.sh) and every seed in fuzz/corpus/, fed to the real commands: a
# config file to `mpilens run`, a matrix to `mpilens place --matrix` and `--ompi-prof`, a
# damaged trace file (in a copy of fuzz/trace-seed) to `mpilens export` and `mpilens
# analyze`. Each must end with status 0 or 2 and, when it fails, one line that names a
# file; never a crash (status >= 128) or a hang (timeout).
source "$(dirname "$0")/../core/lib.sh"
FUZZ=$SRC/fuzz

# ends_cleanly WHAT STATUS OUTPUT
ends_cleanly() {
    local status=$2 lines
    lines=$(grep -c . <<<"$3")
    if [ "$status" -ge 128 ] || [ "$status" -eq 124 ] || { [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; }; then
        bad "$1: status $status"; printf -- '%s\n' "$3" | head -5
    elif [ "$status" -eq 2 ] && ! { [ "$lines" -eq 1 ] && grep -q '^mpilens: .*[/.:]' <<<"$3"; }; then
        bad "$1: not one line naming a file"; printf -- '%s\n' "$3" | head -5
    else
        ok "$1 (status $status)"
    fi
}

for f in "$FUZZ"/regressions/config/* "$FUZZ"/corpus/config/*; do
    [ -e "$f" ] || continue
    out=$(MPILENS_CONF="$f" timeout 20 "$MPILENS" run -o "run-$(basename "$f")" -- true 2>&1); s=$?
    [ $s -eq 0 ] && out=""  # a valid list runs `true` under the named modules or says none exist
    ends_cleanly "config $(basename "$f")" $s "$out"
done

for f in "$FUZZ"/regressions/matrix/* "$FUZZ"/corpus/matrix/*; do
    [ -e "$f" ] || continue
    out=$(timeout 20 "$MPILENS" place --matrix "$f" --topology "node:2 core:2" --oversubscribe 2>&1 > /dev/null); s=$?
    ends_cleanly "place --matrix $(basename "$f")" $s "$out"
    mkdir -p prof && cp "$f" prof/p.0.prof
    out=$(timeout 20 "$MPILENS" place --ompi-prof prof/p --topology "node:2 core:2" --oversubscribe 2>&1 > /dev/null); s=$?
    ends_cleanly "place --ompi-prof $(basename "$f")" $s "$out"
done

# A trace input: its first byte picks the file it replaces (as fuzz/fuzz_trace.c does).
files=(trace/traces.otf2 trace/traces.def trace/traces/0.def trace/traces/0.evt trace/traces/1.evt trace/traces/3.evt)
for f in "$FUZZ"/regressions/trace/* "$FUZZ"/corpus/trace/*; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    rm -rf "t-$name" && cp -r "$FUZZ/trace-seed" "t-$name"
    pick=$(od -An -tu1 -N1 "$f" | tr -d ' ')
    tail -c +2 "$f" > "t-$name/${files[$((pick % ${#files[@]}))]}"
    out=$(timeout 60 "$MPILENS" export "t-$name" --chrome "t-$name.json" 2>&1 > /dev/null); s=$?
    ends_cleanly "export $name" $s "$out"
    out=$(timeout 120 "$MPILENS" analyze "t-$name" --launcher "$MPIRUN" 2>&1 > /dev/null); s=$?
    ends_cleanly "analyze $name" $s "$(grep -v '^\[' <<<"$out" | grep . | tail -1)"
done
finish
