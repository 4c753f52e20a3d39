# SPDX-License-Identifier: BSD-3-Clause
# test_pages_browser.sh: the HTML pages open in a real browser (Debian's chromium, headless)
# with their labels and pictures, and nothing from the data runs: an application argument
# that is a <script> or an <img onerror> (recorded as the run's command line) stays text.
# The DOM chromium builds after running the page is checked. (The run's page in depth:
# test_page.sh.)
source "$(dirname "$0")/../core/lib.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: chromium not installed"; exit 77; }

evil='<script>document.title="pwned"</script><img src=x onerror=document.title="pwned2">'
"$MPILENS" run -m profile,monitor -o run -- $MPIRUN -np 4 "$APPS/ring" 2 "$evil" > run.log 2>&1
check_has "the application ran" "$(cat run.log)" "ring ok: 4 ranks, 2 rounds"
"$MPILENS" report run --html report.html > /dev/null
"$MPILENS" matrix run --format html -o matrix.html > /dev/null

# has_text WHAT TEXT PIECE: PIECE occurs in TEXT (anywhere in a line)
has_text() {
    if grep -qF -- "$3" <<<"$2"; then ok "$1"; else
        bad "$1"; printf -- '--- expected somewhere\n%s\n---\n' "$3"; fi
}
# dom FILE: the page as chromium leaves it after running it
dom() {
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$WORK/chromium" --dump-dom "file://$WORK/$1" 2> /dev/null
}
page=$(dom report.html)
has_text "report: chromium renders the page" "$page" "<h1>mpilens report</h1>"
has_text "report: its title is its own (no script ran)" "$page" "<title>mpilens report</title>"
check_eq "report: no script element came from the data (the page's own only)" 1 \
    "$(grep -o '<script' <<<"$page" | wc -l)"
check_lacks "report: no onerror handler came from the data" "$page" "<img"
has_text "report: the argument is shown as text" "$page" "&lt;script&gt;document.title"
has_text "report: the size histogram has its axes" "$page" "message size (bytes)"
has_text "report: the columns say what they hold" "$page" ">longest call (s)</th>"
page=$(dom matrix.html)
has_text "matrix: chromium renders the heatmap with its axes" "$page" ">receiver rank</text>"
has_text "matrix: and its colour scale in bytes" "$page" ">bytes</text>"
has_text "matrix: its title is its own" "$page" "<title>mpilens matrix</title>"
finish
