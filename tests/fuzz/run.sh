#!/bin/sh
# run.sh BUILD — `make fuzz`: runs every libFuzzer harness of the fuzz tree (FUZZ_BUILD, default
# BUILD-fuzz, which `make fuzz` configures and builds first) and prints, per harness, the inputs
# executed, the time and what was found.  docs/testing.md has the details.
#
# Environment (the Makefile passes its variables of the same names):
#   FUZZ_RUNS=N        inputs per harness (libFuzzer -runs); default: no limit
#   FUZZ_SECONDS=S     seconds per harness (-max_total_time); default 60 when FUZZ_RUNS is not set
#   FUZZ_SEED=N        libFuzzer -seed (default 1: the same inputs every time; 0 = from the clock)
#   FUZZ_JOBS=N        harnesses run at the same time (default: the number of CPUs)
#   FUZZ_HARNESSES="elf dtb ..."   a subset (default: all)
#   FUZZ_DTS_DIVISOR=N the DTS harness runs FUZZ_RUNS/N inputs (default 10: it spawns dtc per
#                      input, a few ms each; the DTB path behind it is fuzz_dtb's)
#
# Each harness starts from the committed corpus, the generated seeds and the crash inputs; the
# corpus it grows is kept in FUZZ_BUILD/fuzz-corpus/<name>/ (emptied at the start, so a run with a
# fixed seed is repeatable).  A finding (crash, hang over 25 s, sanitizer report, leak, fz_fail)
# is copied from FUZZ_BUILD/fuzz-artifacts/<name>/ into tests/fuzz/crashes/<name>/, where every
# later `make test` replays it; the exit status is then 1.
set -u
build=${1:-build}
src=$(cd "$(dirname "$0")/../.." && pwd)
tree=${FUZZ_BUILD:-$build-fuzz}
runs=${FUZZ_RUNS:-}
seconds=${FUZZ_SECONDS:-}
seed=${FUZZ_SEED:-1}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
harnesses=${FUZZ_HARNESSES:-elf dtb dts machine checkpoint report cli guesttrace trace}
divisor=${FUZZ_DTS_DIVISOR:-10}
[ -z "$runs" ] && [ -z "$seconds" ] && seconds=60

for h in $harnesses; do
    if [ ! -x "$tree/tests/fuzz/fuzz_$h" ]; then
        echo "fuzz: $tree/tests/fuzz/fuzz_$h is missing: run make fuzz (it builds the tree)" >&2
        exit 1
    fi
done

# one harness, in the background of the caller; its summary line goes to $tree/fuzz-logs/<h>.sum
run_one() {
    h=$1
    bin=$tree/tests/fuzz/fuzz_$h
    work=$tree/fuzz-corpus/$h
    art=$tree/fuzz-artifacts/$h
    log=$tree/fuzz-logs/$h.log
    rm -rf "$work" "$art"
    mkdir -p "$work" "$art" "$tree/fuzz-logs"
    limits=
    if [ -n "$runs" ]; then
        r=$runs
        [ "$h" = dts ] && r=$((runs / divisor)) && [ "$r" -lt 1 ] && r=1
        limits="-runs=$r"
    fi
    [ -n "$seconds" ] && limits="$limits -max_total_time=$seconds"
    dirs=
    for d in "$src/tests/fuzz/corpus/$h" "$tree/fuzz-seeds/$h" "$src/tests/fuzz/crashes/$h"; do
        [ -d "$d" ] && dirs="$dirs $d"
    done
    start=$(date +%s)
    # shellcheck disable=SC2086 # word lists without spaces
    "$bin" -seed="$seed" $limits -timeout=25 -rss_limit_mb=2560 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$art/" "$work" $dirs >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    [ -z "$n" ] && n=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    n=${n:-0}
    rate=$((n / (secs > 0 ? secs : 1)))
    found=
    for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
        [ -f "$f" ] || continue
        mkdir -p "$src/tests/fuzz/crashes/$h"
        cp "$f" "$src/tests/fuzz/crashes/$h/"
        found="$found tests/fuzz/crashes/$h/$(basename "$f")"
    done
    if [ $rc -eq 0 ] && [ -z "$found" ]; then
        printf '%-11s %10s inputs %6s s %7s/s  no finding\n' "$h" "$n" "$secs" "$rate" >"$tree/fuzz-logs/$h.sum"
    else
        printf '%-11s %10s inputs %6s s %7s/s  FINDING (status %s):%s  (log: %s)\n' "$h" "$n" "$secs" "$rate" \
            "$rc" "${found:- none saved}" "$log" >"$tree/fuzz-logs/$h.sum"
    fi
}

export LSAN_OPTIONS="suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0"
echo "fuzz: $tree, seed $seed, ${runs:+$runs runs }${seconds:+$seconds s }per harness, $jobs at a time"
rm -f "$tree"/fuzz-logs/*.sum
running=0
for h in $harnesses; do
    run_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
status=0
for h in $harnesses; do
    cat "$tree/fuzz-logs/$h.sum"
    grep -q FINDING "$tree/fuzz-logs/$h.sum" && status=1
done
[ $status -ne 0 ] && echo "fuzz: findings above: replay one with $tree/tests/fuzz/fuzz_<name> FILE; docs/testing.md"
exit $status
