# SPDX-License-Identifier: BSD-3-Clause
# test_detail.sh: the profile's per-rank detail (profile:detail=, docs/scaling.md). The
# same program (tests/apps/comms_app.c, 8 ranks: world, splits, dups, a grid, a group, an
# intercommunicator, self) runs with every rank's rows in mpilens.db (detail=ranks) and in
# shards of 3 ranks (detail=shards:shard=3). Checked exactly: the reduction in mpilens.db
# against the shards' rows; reports (all ranks, one rank, call sites) against the detail=ranks
# run, times aside; detail=summary refuses --rank in one line; a missing shard is named;
# intermediate results (MPI_Pcontrol) in shards; the Python package reads the shards. Then
# the scale criterion of issue 37 with the default (auto): bench/scale_app's fixed
# structure at 16 and 128 ranks, the database at most 1.5x larger, rank 100's calls exact.
source "$(dirname "$0")/../core/lib.sh"

run_app() { # DIR MODULES: comms_app on 8 ranks
    timeout 180 "$MPILENS" run -m "$2" -o "$1" -- $MPIRUN -np 8 "$APPS/comms_app" 2>&1 | tail -n 1
}
check_eq "detail=ranks: the usual last line" "mpilens: results in $WORK/ranks (status 0)" \
    "$(run_app ranks profile:detail=ranks)"
check_eq "detail=shards: the usual last line" "mpilens: results in $WORK/shards (status 0)" \
    "$(run_app shards profile:detail=shards:shard=3)"
check_eq "detail=shards: three shards (ranks 0-2, 3-5, 6-7), none in mpilens.db" \
    "ranks-000000.db ranks-000003.db ranks-000006.db 0 shards 3" \
    "$(ls shards/profile-detail | tr '\n' ' ')$(sqlite3 shards/mpilens.db "SELECT COUNT(*) FROM profile") \
$(sqlite3 shards/mpilens.db "SELECT group_concat(value, ' ') FROM (SELECT value FROM metadata WHERE key IN ('Profile detail', 'Profile shard ranks') ORDER BY key)")"
check_eq "a shard says which ranks it holds" "ranks 3 to 5 of 8|3" \
    "$(sqlite3 shards/profile-detail/ranks-000003.db "SELECT (SELECT value FROM metadata WHERE key = 'Profile shard'), COUNT(*) FROM ranks")"

# The reduction against the shards' rows, cell by cell (communicators by identity): ranks,
# calls, volume, time summed, smallest and largest per-rank time with their ranks, longest call.
shard_sql="ATTACH 'shards/profile-detail/ranks-000000.db' AS a; ATTACH 'shards/profile-detail/ranks-000003.db' AS b;
ATTACH 'shards/profile-detail/ranks-000006.db' AS c;
CREATE TEMP VIEW rows AS
  SELECT k.root, k.ordinal, k.members_hash, p.* FROM a.profile p JOIN a.communicators k ON k.id = p.comm_id
  UNION ALL SELECT k.root, k.ordinal, k.members_hash, p.* FROM b.profile p JOIN b.communicators k ON k.id = p.comm_id
  UNION ALL SELECT k.root, k.ordinal, k.members_hash, p.* FROM c.profile p JOIN c.communicators k ON k.id = p.comm_id;"
from_shards=$(sqlite3 shards/mpilens.db "$shard_sql
SELECT x.root, x.ordinal, x.members_hash, x.operation_id, x.bucket, COUNT(*), SUM(x.calls), SUM(x.volume),
  printf('%.9f', SUM(x.time)), printf('%.9f', MIN(x.time)),
  (SELECT MIN(y.rank) FROM rows y WHERE y.root = x.root AND y.ordinal = x.ordinal AND y.members_hash = x.members_hash
     AND y.operation_id = x.operation_id AND y.bucket = x.bucket AND y.time = MIN(x.time)),
  printf('%.9f', MAX(x.time)),
  (SELECT MIN(y.rank) FROM rows y WHERE y.root = x.root AND y.ordinal = x.ordinal AND y.members_hash = x.members_hash
     AND y.operation_id = x.operation_id AND y.bucket = x.bucket AND y.time = MAX(x.time)),
  printf('%.9f', MAX(x.max_time))
FROM rows x GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5")
summary=$(sqlite3 shards/mpilens.db "SELECT k.root, k.ordinal, k.members_hash, s.operation_id, s.bucket, s.ranks,
  s.calls, s.volume, printf('%.9f', s.time), printf('%.9f', s.time_min), s.time_min_rank, printf('%.9f', s.time_max),
  s.time_max_rank, printf('%.9f', s.max_time)
FROM profile_summary s JOIN communicators k ON k.id = s.comm_id ORDER BY 1, 2, 3, 4, 5")
check_eq "profile_summary: every cell of the shards reduced exactly ($(wc -l <<<"$summary") cells)" \
    "$from_shards" "$summary"
check_eq "profile_summary: mean and variance of the per-rank time" "0" \
    "$(sqlite3 shards/mpilens.db "$shard_sql
SELECT COUNT(*) FROM profile_summary s JOIN communicators k ON k.id = s.comm_id
WHERE abs(s.time_mean - (SELECT AVG(x.time) FROM rows x WHERE x.root = k.root AND x.ordinal = k.ordinal
   AND x.members_hash = k.members_hash AND x.operation_id = s.operation_id AND x.bucket = s.bucket)) > 1e-12
OR abs(s.time_var - (SELECT AVG(x.time * x.time) - AVG(x.time) * AVG(x.time) FROM rows x WHERE x.root = k.root
   AND x.ordinal = k.ordinal AND x.members_hash = k.members_hash AND x.operation_id = s.operation_id
   AND x.bucket = s.bucket)) > 1e-12")"

# Reports: communicator, operation, bucket, calls and volume as in the detail=ranks run.
counts() { cut -d, -f1-9,13; }
check_eq "report: the same cells, calls and volumes" \
    "$("$MPILENS" report ranks --sort calls --csv | counts)" "$("$MPILENS" report shards --sort calls --csv | counts)"
for r in 0 4 7; do
    check_eq "report --rank $r: rank $r's own cells, from its shard" \
        "$("$MPILENS" report ranks --rank $r --sort calls --csv | counts)" \
        "$("$MPILENS" report shards --rank $r --sort calls --csv | counts)"
done
sites() { "$MPILENS" report --callsites --top 100 "$@" | awk '$3 ~ /:[0-9]+$/ {print $2, $3, $4, $5}' | sort; }
check_eq "report --callsites: the same sites and calls" "$(sites ranks)" "$(sites shards)"
check_eq "report --callsites --rank 5: from its shard" "$(sites ranks --rank 5)" "$(sites shards --rank 5)"

# detail=summary: no per-rank rows kept; --rank says so in one line.
check_eq "detail=summary: the usual last line" "mpilens: results in $WORK/summary (status 0)" \
    "$(run_app summary profile:detail=summary)"
out=$("$MPILENS" report summary --rank 2 2>&1); status=$?
check_eq "detail=summary: report --rank refused in one line, status 2" \
    "2 1" "$status $(wc -l <<<"$out")"
check_match "... naming the switch" "$out" "rerun with -m profile:detail=shards"
check_eq "detail=summary: report of every rank as with detail=ranks" \
    "$("$MPILENS" report ranks --sort calls --csv | counts)" "$("$MPILENS" report summary --sort calls --csv | counts)"
# A shard that went missing is named.
mv shards/profile-detail/ranks-000006.db shard6.db
out=$("$MPILENS" report shards --rank 7 2>&1); status=$?
check_eq "a missing shard: status 2, one line" "2 1" "$status $(wc -l <<<"$out")"
check_match "... naming the file" "$out" "$WORK/shards/profile-detail/ranks-000006.db: no such database"
check_eq "... while the other ranks and the reduction still report" "0 0" \
    "$("$MPILENS" report shards --rank 1 > /dev/null 2>&1; echo $?) $("$MPILENS" report shards > /dev/null 2>&1; echo $?)"
mv shard6.db shards/profile-detail/ranks-000006.db
out=$("$MPILENS" run -m profile:detail=some -o bad -- $MPIRUN -np 2 "$APPS/ring" 1 2>&1); status=$?
check_eq "detail=some is refused before the job, in one line" "1" "$(wc -l <<<"$out")"
check_match "... naming the values" "$out" "detail=some: give auto, ranks, shards or summary"

# Intermediate results (MPI_Pcontrol(3), written by mpilens run): the same policy from the
# environment. Rank 3's 3 + 5 Sendrecv steps in the shard of ranks 2-3.
MPILENS_PROFILE_DETAIL=shards MPILENS_PROFILE_SHARD=2 timeout 120 "$MPILENS" run -m profile -o pc -- \
    $MPIRUN -np 4 "$APPS/pcontrol_app" > /dev/null 2>&1
check_eq "intermediate result in shards: rank 3's Sendrecv calls" "pc/pcontrol/1/profile-detail/ranks-000002.db 8" \
    "$(ls pc/pcontrol/1/profile-detail/ranks-000002.db) $("$MPILENS" report pc/pcontrol/1 --rank 3 --csv --op Sendrecv | awk -F, 'NR > 1 {n += $9} END {print n}')"

# The Python package reads every rank's rows from the shards.
py_rows() {
    PYTHONPATH="$SRC/python" /usr/bin/python3 -c "
import mpilens
p = mpilens.open('$1').profile
for r in sorted(zip(p['rank'], p['communicator'], p['operation'], p['bucket'], p['calls'], p['volume'])):
    print(*r)"
}
check_eq "python: profile() of a sharded run is every rank's rows" "$(py_rows ranks)" "$(py_rows shards)"

# Issue 37's criterion, default detail (auto): ranks up to 64, shards beyond.
[ "$MPI_FLAVOR" = openmpi ] && BTL="--mca btl self,vader" || BTL=
scale() { # P
    timeout 400 "$MPILENS" run -m profile -o "scale$1" -- $MPIRUN $BTL -np "$1" \
        "$BUILD/bench/scale_app" fixed > /dev/null 2>&1
    stat -c %s "scale$1/mpilens.db"
}
small=$(scale 16)
large=$(scale 128)
echo "run database: $small bytes at 16 ranks, $large at 128"
check_eq "fixed structure: mpilens.db at 128 ranks at most 1.5x its size at 16 ($large / $small)" \
    "1" "$((2 * large <= 3 * small))"
check_eq "auto: every rank's rows in mpilens.db at 16 ranks, shards of 64 at 128" \
    "ranks shards 64" "$(sqlite3 scale16/mpilens.db "SELECT value FROM metadata WHERE key = 'Profile detail'") \
$(sqlite3 scale128/mpilens.db "SELECT group_concat(value, ' ') FROM (SELECT value FROM metadata WHERE key IN ('Profile detail', 'Profile shard ranks') ORDER BY key)")"
# rank 100: Init, one Sendrecv of 1 KiB and a Barrier on the world; one Allreduce of 8 B on
# each of the splits by rank % 2, % 3, % 4, % 5 (sizes 64, 43, 32, 26).
check_eq "report --rank 100 at 128 ranks: rank 100's own calls exactly" \
    "128 Barrier 1 0
128 Init 1 0
128 Sendrecv 1 1024
26 Allreduce 1 8
32 Allreduce 1 8
43 Allreduce 1 8
64 Allreduce 1 8" \
    "$("$MPILENS" report scale128 --rank 100 --csv | awk -F, 'NR > 1 {print $2, $4, $9, $13}' | sort)"
finish
