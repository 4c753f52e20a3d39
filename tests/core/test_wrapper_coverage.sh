# SPDX-License-Identifier: BSD-3-Clause
# test_wrapper_coverage.sh: every PMPI_ function the MPI library exports has a wrapper in
# libmpilens (both its MPI_ entry and its PMPI_ step).
set -u
: "${BUILD:?run through ctest}" "${MPI_LIBRARIES:?run through ctest}"
lib=""
for l in ${MPI_LIBRARIES//;/ }; do
    case "$(basename "$l")" in libmpi.so* | libmpich.so*) lib=$l ;; esac
done
[ -n "$lib" ] || { echo "FAIL: no libmpi in MPI_LIBRARIES=$MPI_LIBRARIES"; exit 1; }
exported=$(nm -D --defined-only "$lib" | awk '$3 ~ /^PMPI_/ {print $3}' | sed 's/@.*//' | sort -u)
ours=$(nm -D --defined-only "$BUILD/lib/libmpilens.so" | awk '$2 == "T" {print $3}' | sort -u)
missing=$(comm -23 <(echo "$exported") <(echo "$ours"))
missing_entries=$(comm -23 <(echo "$exported" | sed 's/^P//') <(echo "$ours"))
echo "$(wc -l <<<"$exported") PMPI_ functions exported by $lib"
if [ -n "$missing$missing_entries" ]; then
    echo "FAIL: no wrapper for:"; echo "$missing" "$missing_entries"; exit 1
fi
echo "PASS: every one has an MPI_ entry and a PMPI_ step in libmpilens.so"
