#!/bin/sh
# sanitize.sh BUILD SAN_BUILD [JOBS] — `make sanitize`: builds pmusim, its tests and the replay
# drivers of the fuzzing harnesses with clang's -fsanitize=address,undefined
# -fno-sanitize-recover=undefined in SAN_BUILD (reusing BUILD's guests), and runs every ctest
# test there: unit, end-to-end, fuzz/replay_* (the corpora and crash inputs).
#
# Every sanitizer report is written to SAN_BUILD/sanitizer-logs/ (ASan's and UBSan's log_path),
# whatever the test does with the program's stderr or exit status; any report fails the run and
# is printed at the end.  Tests see PMUSIM_SANITIZED=1 in their environment: one that cannot run
# under the sanitizers must say why and exit 77 (ctest: skipped), never pass silently.
set -u
build=$1 san=$2 jobs=${3:-2}
src=$(cd "$(dirname "$0")/../.." && pwd)
abs_build=$(cd "$build" && pwd)
if [ ! -f "$san/CMakeCache.txt" ]; then
    CC=clang cmake -S "$src" -B "$san" -DCMAKE_BUILD_TYPE=Release -DPMUSIM_SANITIZE=ON \
        -DPMUSIM_GUEST_DIR="$abs_build/guest" || exit 1
fi
cmake --build "$san" -j "$jobs" || exit 1
logs=$(cd "$san" && pwd)/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
export PMUSIM_SANITIZED=1
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}    # Check's 4 s per unit test, for a 2-3x slower build
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:print_summary=1"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0"
start=$(date +%s)
(cd "$san" && ctest --output-on-failure -j "$jobs")
rc=$?
echo "sanitize: ctest in $san: $(($(date +%s) - start)) s, status $rc"
if [ -n "$(ls -A "$logs")" ]; then
    for f in "$logs"/*; do
        echo "==== $f"
        cat "$f"
    done
    echo "sanitize: sanitizer reports above (files in $logs)"
    rc=1
fi
exit $rc
