# SPDX-License-Identifier: BSD-3-Clause
# test_bad_input.sh: every mistake gives one clear line (file or variable, what is wrong,
# what to do) on stderr, once per job, a non-zero exit, and the application never runs.
source "$(dirname "$0")/lib.sh"

# expect_refused WHAT TEXT CMD...: the run fails, exactly one "mpilens:" line is printed,
# it contains TEXT, and the application printed nothing.
expect_refused() {
    local what=$1 text=$2; shift 2
    local out status
    out=$("$@" 2>&1); status=$?
    if [ "$status" -ne 0 ]; then ok "$what: non-zero exit"; else bad "$what: exit 0"; fi
    local said
    said=$(grep '^mpilens:' <<<"$out")
    check_eq "$what: one line from mpilens" "1" "$(grep -c . <<<"$said")"
    if grep -qF -- "$text" <<<"$said"; then ok "$what: says '$text'"; else
        bad "$what: message"; printf -- '--- expected to contain\n%s\n--- got\n%s\n' "$text" "$said"; fi
    check_lacks "$what: application did not run" "$out" "ring ok"
}

# preloaded VAR=VALUE...: a 2-rank job, where the line must come once (rank 0's); the
# other ranks of a refused job wait 3 s for it to be out (messages.c), so the cases that
# check only what the line says run 1 rank (preloaded1).
preloaded() { env "$@" LD_PRELOAD="$CORE" $MPIRUN -np 2 "$APPS/ring"; }
preloaded1() { env "$@" LD_PRELOAD="$CORE" $MPIRUN -np 1 "$APPS/ring"; }

expect_refused "unknown module" \
    "mpilens: MPILENS_MODULES: unknown module 'nosuch' (no nosuch.so, libnosuch.so or mpilens-nosuch.so in $MODS:" \
    preloaded MPILENS_MODULES=tlog_a,nosuch
expect_refused "unknown module via the CLI (checked before launch)" \
    "mpilens: -m: MPILENS_MODULES: unknown module 'nosuch'" \
    "$MPILENS" run -m nosuch -- $MPIRUN -np 2 "$APPS/ring"
expect_refused "unknown module argument (checked before launch)" \
    "mpilens: MPILENS_MODULES: module 'profile': unknown argument 'bucket'; it takes buckets, pcontrol, detail, shard (mpilens modules profile)" \
    "$MPILENS" run -m profile:bucket=10 -- $MPIRUN -np 2 "$APPS/ring"
expect_refused "unknown module argument without the CLI" \
    "mpilens: MPILENS_MODULES: module 'trace': unknown argument 'buffr'; it takes buffer, convert (mpilens modules trace)" \
    preloaded1 MPILENS_MODULES=trace:buffr=1M
expect_refused "out-of-range module value (checked before launch)" \
    "mpilens: trace: buffer=1: give the event buffer's size from 4096 bytes to 16G" \
    "$MPILENS" run -m trace:buffer=1 -- $MPIRUN -np 2 "$APPS/ring"
expect_refused "out-of-range module value without the CLI" \
    "mpilens: monitor: start='7': give start=1 (count from MPI_Init) or start=0" \
    preloaded1 MPILENS_MODULES=monitor:start=7
expect_refused "module path that does not exist" \
    "mpilens: MPILENS_MODULES: module file '/nonexistent/tool.so' does not exist; give the path of an existing .so or a module name" \
    preloaded1 MPILENS_MODULES=/nonexistent/tool.so

head -c 4096 /dev/zero | tr '\0' x > broken.so
expect_refused "a .so that fails to load" \
    "mpilens: MPILENS_MODULES: module '$WORK/broken.so' failed to load: $WORK/broken.so: invalid ELF header; rebuild it" \
    preloaded1 MPILENS_MODULES=$WORK/broken.so

head -c 3000 "$MODS/counter.so" > cut.so
expect_refused "a .so cut short (would fault inside dlopen)" \
    "mpilens: MPILENS_MODULES: module '$WORK/cut.so': $WORK/cut.so: truncated or damaged shared object (3000 bytes" \
    preloaded1 MPILENS_MODULES=$WORK/cut.so
expect_refused "a .so cut short, via the CLI (checked before launch)" \
    "mpilens: -m: $WORK/cut.so: truncated or damaged shared object" \
    "$MPILENS" run -m "$WORK/cut.so" -- $MPIRUN -np 2 "$APPS/ring"
out=$(MPILENS_MODULE_PATH=$WORK "$MPILENS" modules 2>&1); status=$?
check_eq "mpilens modules lists a .so cut short without dying" 0 $status
check_match "mpilens modules says why it cannot load it" "$out" "^cut +- +\(cannot load: .*truncated or damaged"

printf 'module tlog_a\nmodul tlog_b\n' > typo.conf
expect_refused "malformed config line" \
    "mpilens: $WORK/typo.conf:2: unknown directive 'modul'; each line reads \`module NAME [key=value ...]\`" \
    preloaded MPILENS_CONF=$WORK/typo.conf
printf '# comment\nmodule tlog_a tag\n' > arg.conf
expect_refused "config argument without =" \
    "mpilens: $WORK/arg.conf:2: module 'tlog_a': argument 'tag' is not key=value; write it as key=value" \
    preloaded1 MPILENS_CONF=$WORK/arg.conf
printf 'module\n' > noname.conf
expect_refused "module line without a name" \
    "mpilens: $WORK/noname.conf:1: \`module\` without a name" \
    preloaded1 MPILENS_CONF=$WORK/noname.conf
printf 'module nosuch\n' > unknown.conf
expect_refused "unknown module in a config file names file and line" \
    "mpilens: $WORK/unknown.conf:1: unknown module 'nosuch'" \
    preloaded1 MPILENS_CONF=$WORK/unknown.conf
expect_refused "missing config file" \
    "mpilens: $WORK/none.conf: cannot read the config file (No such file or directory)" \
    preloaded1 MPILENS_CONF=$WORK/none.conf
expect_refused "empty item in the list" \
    "mpilens: MPILENS_MODULES='tlog_a,,counter': module 2 has no name" \
    preloaded1 MPILENS_MODULES=tlog_a,,counter
expect_refused "empty MPILENS_MODULES" \
    "mpilens: MPILENS_MODULES is set but empty" \
    preloaded1 MPILENS_MODULES=
expect_refused "mpilens run -m with an empty list" \
    "mpilens: run -m: empty module list; name at least one module" \
    "$MPILENS" run -m "" -- $MPIRUN -np 2 "$APPS/ring"
expect_refused "unwritable output directory (CLI)" \
    "mpilens: run -o /proc/mpilens-test: cannot create or write the output directory" \
    "$MPILENS" run -m counter -o /proc/mpilens-test -- $MPIRUN -np 2 "$APPS/ring"
expect_refused "unwritable output directory (MPILENS_OUTPUT)" \
    "mpilens: MPILENS_OUTPUT=/proc/mpilens-test: cannot create or write the output directory" \
    preloaded MPILENS_MODULES=counter MPILENS_OUTPUT=/proc/mpilens-test
expect_refused "unknown verb" "mpilens: unknown verb 'rnu'; did you mean mpilens run?" "$MPILENS" rnu
expect_refused "a misspelt option: the one meant" \
    "mpilens: run: unknown or incomplete option '--modlues' (did you mean --modules?)" \
    "$MPILENS" run --modlues counter -- $MPIRUN -np 2 "$APPS/ring"
expect_refused "a misspelt module: the one meant" "unknown module 'countr' (did you mean counter?)" \
    "$MPILENS" run -m countr -- $MPIRUN -np 2 "$APPS/ring"
# GNU's --option=value, as users type it; the launcher's and the program's words untouched
out=$(timeout 120 "$MPILENS" run --modules=profile --output="$WORK/gnu" $MPIRUN -np 2 \
    "$APPS/ring" 2>&1)
check_has "run --modules=profile --output=DIR: the run's line" "$out" "mpilens: results in $WORK/gnu (status 0)"
out=$(timeout 120 "$MPILENS" run --modules=counter -o "$WORK/gnu2" $MPIRUN -np 1 /bin/echo \
    --size=10 2>&1)
check_has "... the program's own --size=10 reaches it as it was" "$out" "--size=10"
check_eq "report --sort=calls as --sort calls" \
    "$("$MPILENS" report "$WORK/gnu" --sort calls 2>&1)" "$("$MPILENS" report "$WORK/gnu" --sort=calls 2>&1)"
expect_refused "run without a command" "mpilens: run: no command to run" "$MPILENS" run -m counter
finish
