#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# fuzz.sh: the libFuzzer targets of fuzz/ (our own parsers: module lists and config files,
# traffic matrices in CSV and Open MPI .prof form, the trace readers of `mpilens export`,
# and the run database's readers, `mpilens report` and `matrix`), built with clang's address and undefined-behaviour sanitizers. First every kept
# input of fuzz/regressions/TARGET/ (crashers found earlier) and every seed of
# fuzz/corpus/TARGET/ is replayed (the test suite stops there: SECONDS 0), then each target
# fuzzes for SECONDS from its seeds (fuzz/corpus/TARGET) and what it learned before
# (build-fuzz/corpus/TARGET). A crash, leak or hang stops with the input's path: fix the
# bug and keep the input in fuzz/regressions/TARGET/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (default 30 s each; 0: replay only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${MPILENS_FUZZ_BUILD:-$root/build-fuzz}
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config matrix trace db)
command -v clang > /dev/null || { echo "fuzz.sh: clang is not installed (apt-get install clang)"; exit 77; }

mkdir -p "$out"
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$root/include" -I"$root/src/core" -I"$root/src/cli" -I"$root/src/common" -I"$root/src/db" -I"$root/src/pop")
build() { # NAME SOURCES... [-- LIBS...]
    local name=$1; shift
    clang "${flags[@]}" -o "$out/fuzz_$name" "$@"
}
for t in "${targets[@]}"; do
    case $t in
    config) build config "$root/fuzz/fuzz_config.c" "$root/src/core/modspec.c" "$root/src/common/text_nearest.c" ;;
    matrix) build matrix "$root/fuzz/fuzz_matrix.c" "$root/src/cli/triples.c" "$root/src/cli/ompi_prof.c" -lm ;;
    trace) build trace "$root/fuzz/fuzz_trace.c" "$root/src/cli/export.c" "$root/src/cli/paths.c" "$root/src/cli/recover.c" "$root/src/cli/cli_args.c" "$root/src/core/modspec.c" "$root/src/common/text_nearest.c" "$root/src/core/elf_check.c" "$root/src/db/rundb.c" "$root/src/db/rundb_read.c" "$root/src/db/rundb_waits.c" "$root/src/db/rundb_detail.c" \
                 "$root/src/common/trace_reader.c" "$root/src/common/trace_anchor.c" "$root/src/common/trace_check.c" \
                 "$root/src/common/trace_defs.c" \
                 -lopen-trace-format2 -lsqlite3 -lm ;;
    db) build db "$root/fuzz/fuzz_db.c" "$root/src/cli/paths.c" "$root/src/cli/cli_args.c" "$root/src/common/text_nearest.c" "$root/src/common/text_fields.c" "$root/src/db/rundb.c" "$root/src/db/rundb_read.c" "$root/src/db/rundb_waits.c" "$root/src/db/rundb_detail.c" \
              "$root/src/cli/"{report,report_query,report_text,report_efficiency,report_html,report_waits,report_sites,page,page_detail,page_svg,page_findings}.c \
              "$root/src/common/html.c" "$root/src/common/comm_letters.c" "$root/src/pop/pop_run.c" "$root/src/pop/pop_bounds.c" \
              "$root/src/cli/"{matrix,matrix_load,matrix_output,matrix_prof}.c -lsqlite3 -lm ;;
    *) echo "fuzz.sh: unknown target '$t': use config, matrix, trace or db"; exit 2 ;;
    esac
done

export MPILENS_FUZZ_TRACE_SEED="$root/fuzz/trace-seed"
cd "$out" # what the sanitizers write of the readers' checking children lands here
# A size read from a corrupt anchor makes OTF2 ask for gigabytes (without touching them:
# production fails in seconds with a few MB resident). Under ASan that would look like an
# out-of-memory, so allocations above 512 MB fail (return NULL) instead, and OTF2 reports
# an error as it does when memory runs out.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=512}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
for t in "${targets[@]}"; do
    kept=()
    for f in "$root"/fuzz/regressions/"$t"/* "$root"/fuzz/corpus/"$t"/*; do
        [ -f "$f" ] && kept+=("$f")
    done
    if [ ${#kept[@]} -gt 0 ]; then
        "$out/fuzz_$t" -close_fd_mask=3 -timeout=10 "${kept[@]}" > "$out/replay_$t.log" 2>&1 ||
            { tail -40 "$out/replay_$t.log"; echo "fuzz.sh: $t: a kept input fails again (see above)"; exit 1; }
        echo "fuzz.sh: $t: ${#kept[@]} kept inputs and seeds replayed"
    fi
    [ "$seconds" -gt 0 ] || continue
    mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
    # while fuzzing, the trace readers' check runs in this process (not in a child), so
    # that the fuzzer sees OTF2's coverage and its faults; the replay above keeps the child
    if ! MPILENS_TRACE_CHECK_IN_PROCESS=1 "$out/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
            -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" "$root/fuzz/corpus/$t" \
            > "$out/fuzz_$t.log" 2>&1; then
        tail -40 "$out/fuzz_$t.log"
        echo "fuzz.sh: $t: found a failing input in $out/artifacts/$t/; fix it and keep it in fuzz/regressions/$t/"
        exit 1
    fi
    echo "fuzz.sh: $t: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/fuzz_$t.log" | grep -o '[0-9]*$' || grep -oE '#[0-9]+' "$out/fuzz_$t.log" | tail -1) runs in ${seconds} s, no failure"
done
