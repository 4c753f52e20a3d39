# SPDX-License-Identifier: BSD-3-Clause
# test_config.sh: the same stack chosen four ways (config file in the working directory,
# MPILENS_CONF, `mpilens run -m`, `mpilens run -c`) gives the same log; arguments from a
# config line reach the module; MPILENS_MODULES wins over a config file.
source "$(dirname "$0")/lib.sh"

mkdir logs
cat > .mpilens.conf <<'CONF'
# stack for the test: tlog_a first
module tlog_a   tag=fromfile   # trailing comment

module tlog_b
CONF
TLOG_DIR=$WORK/logs mpi 2 "$APPS/ring" > out.txt 2>&1
reference=$(cat logs/rank-0.log)
check_has "./.mpilens.conf: tlog_a got its argument" "$reference" "tlog_a init level=1 tag=fromfile"
check_has "./.mpilens.conf: tlog_b second" "$reference" "tlog_b init level=2 tag=none"
check_has "./.mpilens.conf: stacked" "$reference" "tlog_b enter MPI_Send count=1024"

mkdir elsewhere && mv .mpilens.conf elsewhere/stack.conf && rm -f logs/*
TLOG_DIR=$WORK/logs MPILENS_CONF=$WORK/elsewhere/stack.conf mpi 2 "$APPS/ring" > out.txt 2>&1
check_eq "MPILENS_CONF gives the same log" "$reference" "$(cat logs/rank-0.log)"

rm -f logs/*
mkdir home && cp elsewhere/stack.conf home/.mpilens.conf
TLOG_DIR=$WORK/logs HOME=$WORK/home mpi 2 "$APPS/ring" > out.txt 2>&1
check_eq "\$HOME/.mpilens.conf gives the same log" "$reference" "$(cat logs/rank-0.log)"

rm -f logs/*
TLOG_DIR=$WORK/logs "$MPILENS" run -m tlog_a:tag=fromfile,tlog_b -o res -- $MPIRUN -np 2 "$APPS/ring" > out.txt 2>&1
check_eq "mpilens run -m gives the same log" "$reference" "$(cat logs/rank-0.log)"

rm -f logs/*
TLOG_DIR=$WORK/logs "$MPILENS" run -c elsewhere/stack.conf -o res -- $MPIRUN -np 2 "$APPS/ring" > out.txt 2>&1
check_eq "mpilens run -c gives the same log" "$reference" "$(cat logs/rank-0.log)"

rm -f logs/* && cp elsewhere/stack.conf .mpilens.conf
TLOG_DIR=$WORK/logs MPILENS_MODULES=tlog_b mpi 2 "$APPS/ring" > out.txt 2>&1
check_eq "MPILENS_MODULES overrides the config file" "tlog_b init level=1 tag=none" "$(head -1 logs/rank-0.log)"

rm -f logs/*
TLOG_DIR=$WORK/logs MPILENS_MODULES=$MODS/tlog_a.so:tag=path mpi 2 "$APPS/ring" > out.txt 2>&1
check_eq "a module named by its path" "tlog_a init level=1 tag=path" "$(head -1 logs/rank-0.log)"
finish
