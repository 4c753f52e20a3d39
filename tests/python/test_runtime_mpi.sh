# SPDX-License-Identifier: BSD-3-Clause
# test_runtime_mpi.sh: programs that load MPI at run time (issue 58). Python with mpi4py
# (Debian's is built against Open MPI: its checks run in the Open MPI build; in the MPICH
# build the same program shows that a library of another MPI than mpilens was built for
# runs unmeasured, status and output its own), and tests/apps/dlopen_ring, which dlopens
# the library RTLD_LOCAL (and RTLD_GLOBAL, and late) and takes every function with dlsym,
# on both MPIs: its matrix equals the linked ring's. A process that never loads MPI under
# the preload writes nothing and says nothing.
source "$(dirname "$0")/../core/lib.sh"
PY=/usr/bin/python3
PYAPPS=$SRC/tests/python/apps
cp "$PYAPPS"/*.py "$WORK"/
case "$MPI_FLAVOR" in
    openmpi) LIB=libmpi.so.40 ;;
    *) LIB=libmpich.so.12 ;;
esac
sorted() { sort <<<"$1"; }
m() { "$MPILENS" matrix "$1" --format csv | tail -n +2 | tr '\n' ' '; }

# --- a process that never loads MPI: nothing written, nothing said
mkdir quiet
out=$(cd quiet && LD_PRELOAD=$CORE MPILENS_MODULES=profile,monitor,trace $PY ../no_mpi.py 2>&1 \
      || echo "status $?")
check_eq "python without MPI under the preload: its output only" "no MPI here 45" "$out"
check_eq "... and no file" "" "$(ls -A quiet)"
out=$(cd quiet && LD_PRELOAD=$CORE MPILENS_MODULES=profile MPILENS_OUTPUT=out sh -c 'echo hi' 2>&1)
check_eq "a shell under the preload with an output directory set: no file, no line" "hi " \
    "$out $(ls -A quiet)"

# --- dlopen: RTLD_LOCAL, RTLD_GLOBAL, late; the same matrix as the linked ring
ring=$(timeout 120 "$MPILENS" run -m monitor -o linked -- $MPIRUN -np 4 "$APPS/ring" 10 2>/dev/null)
check_eq "linked ring ran" "ring ok: 4 ranks, 10 rounds" "$ring"
expected="p2p,0,1,10,10240 p2p,1,2,10,10240 p2p,2,3,10,10240 p2p,3,0,10,10240 "
check_eq "linked ring: 10 x 1 KiB to the right" "$expected" "$(m linked)"
for how in "local" "global" "local late"; do
    set -- $how
    dir=dl_${1}_${2:-now}
    out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o "$dir" -- \
          $MPIRUN -np 4 "$APPS/dlopen_ring" $LIB 10 $how 2>"$dir.err"; echo "status $?")
    check_eq "dlopen ($how): the ring's output and status" "ring ok: 4 ranks, 10 rounds
status 0" "$out"
    check_eq "dlopen ($how): the matrix is the linked ring's" "$expected" "$(m "$dir")"
    sites=$("$MPILENS" report "$dir" --callsites --csv | awk -F, 'NR > 1 {print $5 "@" $3 ":" $4}' \
            | sed 's|@.*/|@|' | sort | tr '\n' ' ')
    check_eq "dlopen ($how): call sites are dlopen_ring.c's lines" \
        "Barrier@dlopen_ring.c:59 Init@dlopen_ring.c:40 Recv@dlopen_ring.c:51 Recv@dlopen_ring.c:53 Reduce@dlopen_ring.c:62 Send@dlopen_ring.c:50 Send@dlopen_ring.c:54 " \
        "$sites"
done
out=$(timeout 120 "$MPILENS" analyze dl_local_now 2>&1; echo "status $?")
check_match "dlopen: the trace replays (analyze)" "$out" "^status 0$"

if [ "$MPI_FLAVOR" != openmpi ]; then
    # Debian's mpi4py uses Open MPI; mpilens is built for MPICH here: never fail the job
    ompi="mpirun.openmpi --allow-run-as-root --oversubscribe"
    plain=$(timeout 120 $ompi -np 4 $PY ring.py 2>/dev/null)
    out=$(LD_PRELOAD=$CORE MPILENS_MODULES=profile,monitor MPILENS_OUTPUT=other \
          timeout 120 $ompi -np 4 $PY ring.py 2>err; echo "status $?")
    check_eq "mpi4py on Open MPI under an MPICH build: the program's output and status" \
        "$(sorted "$plain")
status 0" "$(sorted "$(grep -v '^status' <<<"$out")")
$(grep '^status' <<<"$out")"
    check_eq "... said in one line" \
        "mpilens: nothing measured: this program uses Open MPI (/lib/x86_64-linux-gnu/libmpi.so.40) and mpilens was built for MPICH; its MPI calls go straight to the library (build mpilens against it: scripts/build.sh openmpi)" \
        "$(grep mpilens err)"
    check_eq "... and no results directory" "" "$(ls -d other 2>/dev/null)"
    finish
fi

# --- mpi4py: the ring under profile, monitor and trace
plain=$(timeout 120 $MPIRUN -np 4 $PY ring.py 2>/dev/null; echo "status $?")
out=$(timeout 120 "$MPILENS" run -m profile,monitor,trace -o pyring -- $MPIRUN -np 4 $PY ring.py \
      2>pyring.err; echo "status $?")
check_eq "mpi4py ring: output and status identical to the run without mpilens" \
    "$(sorted "$plain")" "$(sorted "$out")"
check_match "mpi4py ring: status 0" "$out" "^status 0$"
pickle=$($PY -c "import pickle; print(len(pickle.dumps({'rank': 0}, pickle.HIGHEST_PROTOCOL)))")
right=$("$MPILENS" matrix pyring --format csv | awk -F, '$3 == ($2 + 1) % 4 {print $2 "->" $3, $4, $5}' \
        | tr '\n' ' ')
b=$((10240 + pickle))
check_eq "mpi4py ring: 10 x 1 KiB and the ${pickle}-byte pickle to each right neighbour" \
    "0->1 11 $b 1->2 11 $b 2->3 11 $b 3->0 11 $b " "$right"
world=$("$MPILENS" report pyring --csv | awk -F, '$1 == "W0.0" && ($4 == "Isend" || $4 == "Recv" || $4 == "Wait") {print $4, $7 "-" $8, $9, $13}' | sort | tr '\n' ' ')
check_eq "mpi4py ring: Isend, Recv and Wait charged to MPI_COMM_WORLD (W0.0)" \
    "Isend 0-128 4 $((4 * pickle)) Isend 129-1024 40 40960 Recv 129-1024 40 40960 Wait 0-128 44 0 " \
    "$world"
sites=$("$MPILENS" report pyring --callsites --csv | awk -F, 'NR > 1 {print $5 "@" $3 ":" $4 ":" $2}' \
        | sed 's|@.*/|@|' | sort | tr '\n' ' ')
check_eq "mpi4py ring: every call site is the Python line that made the call" \
    "Bcast@ring.py:17:<module> Init_thread@ring.py:4:<module> Isend@ring.py:11:<module> Isend@ring.py:15:<module> Mprobe@ring.py:15:<module> Mrecv@ring.py:15:<module> Recv@ring.py:12:<module> Recv@ring.py:17:<module> Send@ring.py:17:<module> Wait@ring.py:13:<module> Wait@ring.py:15:<module> " \
    "$sites"
check_eq "mpi4py ring: the trace is there" "yes" "$(test -s pyring/trace/traces.otf2 && echo yes)"
out=$(timeout 120 "$MPILENS" analyze pyring 2>&1; echo "status $?")
check_match "mpi4py ring: analyze replays the trace" "$out" "^status 0$"
check_match "mpi4py ring: the wait states are in the database" \
    "$(sqlite3 pyring/mpilens.db 'SELECT COUNT(*) FROM waits' 2>&1)" "^[0-9]+$"

# --- communicators and requests: the Python program's profile is its C twin's
profile() { "$MPILENS" report "$1" --csv | awk -F, 'NR > 1 && $4 !~ /Init|Finalize/ {print $1, $2, $4, $9, $13}' | sort; }
timeout 120 "$MPILENS" run -m profile -o pycomms -- $MPIRUN -np 4 $PY comms.py >/dev/null 2>&1
timeout 120 "$MPILENS" run -m profile -o ccomms -- $MPIRUN -np 4 "$APPS/comms_twin" >/dev/null 2>&1
check_eq "Split, Dup, Create_cart named as in C; Waitall charged to W0.0" "W0.0 4 Irecv 4 256
W0.0 4 Isend 4 256
W0.0 4 Waitall 4 0
a0.3 4 Allreduce 1 128
d0.2 4 Allreduce 1 128
s0.1 2 Allreduce 1 64
s1.1 2 Allreduce 1 64" "$(profile pycomms)"
check_eq "... identical to the C program's profile" "$(profile ccomms)" "$(profile pycomms)"

# --- Python threads calling MPI at once (MPI_THREAD_MULTIPLE)
out=$(timeout 180 "$MPILENS" run -m profile,monitor -o pythreads -- $MPIRUN -np 2 $PY threads.py \
      2>/dev/null | sort)
check_eq "4 Python threads: the program ran" "threads ok 0
threads ok 1" "$out"
check_eq "4 Python threads: 4 x 500 messages of 128 B each way" \
    "p2p,0,1,2000,256000 p2p,1,0,2000,256000 " "$(m pythreads)"
check_eq "4 Python threads: one call site, the worker's line" "Sendrecv@threads.py:17:worker:4000" \
    "$("$MPILENS" report pythreads --callsites --csv | awk -F, '$5 == "Sendrecv" {print $5 "@" $3 ":" $4 ":" $2 ":" $6}' | sed 's|@.*/|@|')"

# --- the other ways Python jobs start
out=$(timeout 120 "$MPILENS" run -m profile -o module -- $MPIRUN -np 2 $PY -m mpi4py late.py 2>/dev/null)
check_eq "python3 -m mpi4py, MPI loaded inside a function called late" "late True 2
late True 2" "$out"
check_eq "... its allreduce named at late.py:12 in measure" "measure late.py:12" \
    "$("$MPILENS" report module --callsites --csv | awk -F, '$5 == "Bcast" {print $2, $3 ":" $4}' | sed 's|/.*/||')"
out=$(timeout 120 "$MPILENS" run -m profile,monitor -o single -- $PY late.py 2>/dev/null)
check_eq "a singleton (python3 late.py, no launcher)" "late True 1" "$out"
check_eq "... recorded: 1 process" "1" "$(sqlite3 single/mpilens.db "SELECT value FROM metadata WHERE key = 'Processes'")"
out=$(LD_PRELOAD=$CORE MPILENS_MODULES=profile MPILENS_OUTPUT=env timeout 120 $MPIRUN -np 2 $PY late.py 2>&1)
check_match "through the environment (LD_PRELOAD, no mpilens run)" "$out" "^mpilens: results in .*/env$"
finish
