# SPDX-License-Identifier: BSD-3-Clause
# test_pip_install.sh: the Python package installs as Python users expect (issue 58): into a
# virtual environment made with --system-site-packages (Debian's pandas and matplotlib),
# offline (--no-index), with the interpreter's own setuptools (--no-build-isolation); then
# `import mpilens` works from anywhere, its version is the project's, pandas is declared,
# and it reads a real run.
source "$(dirname "$0")/../core/lib.sh"
cp -r "$SRC/python" pkg # pip builds in the directory: leave the source tree as it is
out=$(timeout 120 /usr/bin/python3 -m venv --system-site-packages env 2>&1; echo "status $?")
check_eq "venv made" "status 0" "$(tail -1 <<<"$out")"
out=$(timeout 300 env/bin/python -m pip install --no-index --no-build-isolation ./pkg 2>&1; echo "status $?")
check_match "pip install --no-index --no-build-isolation ./python" "$out" "^Successfully installed mpilens-"
check_eq "... status 0" "status 0" "$(tail -1 <<<"$out")"
rm -rf pkg
version=$("$MPILENS" --version | awk '{print $2}')
check_eq "import mpilens from the venv; its version is the project's (mpilens --version)" \
    "$version $WORK/env" \
    "$(cd / && "$WORK/env/bin/python" -c 'import mpilens, sys; print(mpilens.__version__, sys.prefix)')"
check_eq "CMake's project version is the same" "$version" \
    "$(sed -n 's/^project(mpilens VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")"
check_match "pandas is declared" "$(env/bin/python -m pip show mpilens)" "^Requires: pandas$"
timeout 120 "$MPILENS" run -m profile,monitor -o run -- $MPIRUN -np 4 "$APPS/ring" 3 >/dev/null 2>&1
check_eq "the installed package reads a run: 4 sender-receiver pairs, 3 x 1 KiB each" "4 12288" \
    "$(cd / && "$WORK/env/bin/python" -c "
import mpilens
m = mpilens.open('$WORK/run').matrix('p2p')
print(int((m.values > 0).sum()), int(m.values.sum()))")"
finish
