# SPDX-License-Identifier: BSD-3-Clause
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
    [ $s -ne 0 ] && [ -e "t-$name.json" ] && bad "export $name: failed but left t-$name.json"
    out=$(timeout 120 "$MPILENS" analyze "t-$name" --launcher "$MPIRUN" 2>&1 > /dev/null); s=$?
    ends_cleanly "analyze $name" $s "$(grep -v '^\[' <<<"$out" | grep . | tail -1)"
done

# The anchor on which OTF2 3.0's OTF2_AnchorFile_Load corrupts its heap (a property count
# of 2^31 + 1: calloc(2 * count) overflows 32 bits): refused by our anchor check, naming it.
t=anchor-property-count-overflow
read_trace() { # VERB: export or analyze the damaged copy
    if [ "$1" = export ]; then timeout 60 "$MPILENS" export "t-$t" --chrome x.json
    else timeout 120 "$MPILENS" analyze "t-$t" --launcher "$MPIRUN"; fi
}
for verb in export analyze; do
    out=$(read_trace $verb 2>&1); s=$?
    check_eq "$verb of the overflowing anchor: status" 2 $s
    check_match "$verb of the overflowing anchor: names traces.otf2 and the byte" "$out" \
        "^mpilens: $verb: t-$t/trace/traces.otf2: corrupt anchor: property count 2147483649 .* at byte 49"
    # and when our check is bypassed, OTF2's crash stays in the checking child
    out=$(MPILENS_TRACE_TRUST_ANCHOR=1 read_trace $verb 2>&1); s=$?
    check_eq "$verb, anchor check bypassed: status" 2 $s
    check_match "$verb, anchor check bypassed: the crash is contained and named" "$out" \
        "^mpilens: $verb: t-$t/trace/traces.otf2: corrupt in a way the OTF2 library cannot survive \\(it died of signal 6"
done
[ -e x.json ] && bad "a failed export left x.json"

# A damaged run database: report and matrix, in each of their views, end with 0 or one line.
for f in "$FUZZ"/regressions/db/* "$FUZZ"/corpus/db/*; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    mkdir -p "db-$name" && cp "$f" "db-$name/mpilens.db"
    for args in "" "--csv" "--waits" "--html db-$name/page.html"; do
        out=$(timeout 20 "$MPILENS" report "db-$name" $args 2>&1 > /dev/null); s=$?
        ends_cleanly "report $args $name" $s "$out"
    done
    for args in "" "--format csv" "--format svg" "--format prof" "--kind all" "--kind io" "--histogram 0"; do
        out=$(timeout 20 "$MPILENS" matrix "db-$name" $args 2>&1 > /dev/null); s=$?
        ends_cleanly "matrix $args $name" $s "$out"
    done
done
finish
