#!/bin/sh
# smoke.sh FUZZ_TREE SRC NAME RUNS — ctest's fuzz/smoke_<NAME>: a fixed-seed libFuzzer run of RUNS
# inputs of one harness, from the committed corpus, the generated seeds and the crash inputs, into
# a scratch corpus (nothing is written to the source tree).  Fails on any finding (crash, hang of
# more than 25 s, sanitizer report, leak, fz_fail), naming the reproducer that libFuzzer saved in
# FUZZ_TREE/fuzz-artifacts/NAME/, and when the run stops short of RUNS.
set -u
tree=$1 src=$2 name=$3 runs=$4
bin=$tree/tests/fuzz/fuzz_$name
if [ ! -x "$bin" ]; then
    echo "smoke: $bin is missing: build the fuzz tree (make test builds it; see docs/testing.md)"
    exit 1
fi
art=$tree/fuzz-artifacts/$name
mkdir -p "$art"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-smoke-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
dirs=
for d in "$src/tests/fuzz/corpus/$name" "$tree/fuzz-seeds/$name" "$src/tests/fuzz/crashes/$name"; do
    [ -d "$d" ] && dirs="$dirs $d"
done
export LSAN_OPTIONS="suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0"
start=$(date +%s)
# shellcheck disable=SC2086 # $dirs: a list of paths without spaces
"$bin" -seed=1 -runs="$runs" -timeout=25 -rss_limit_mb=2560 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$art/" "$work/corpus" $dirs >"$work/log" 2>&1
rc=$?
end=$(date +%s)
if [ $rc -ne 0 ] || ! grep -q "^Done $runs runs" "$work/log"; then
    tail -n 200 "$work/log"
    echo "smoke: fuzz_$name: FINDING (status $rc) after $((end - start)) s; reproducer:"
    ls -t "$art" 2>/dev/null | head -n 3 | sed "s|^|  $art/|"
    echo "smoke: replay it with $bin FILE (or the replay driver of a normal tree); once fixed, copy it"
    echo "smoke: into tests/fuzz/crashes/$name/ so that every test run replays it"
    exit 1
fi
echo "smoke: fuzz_$name: $runs inputs in $((end - start)) s, no finding (seed 1)"
