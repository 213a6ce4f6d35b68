#!/bin/sh
# run.sh — run random guests under pmusim and report every one that breaks it.
#
#   sh tests/randguest/run.sh BUILD_DIR [options]
#
#   --arch LIST        x86_64,arm64,ppc32 (default: all three)
#   --count N          guests per architecture (default $RANDGUEST_COUNT or 10000)
#   --first N          first seed (default $RANDGUEST_SEED or 0)
#   --regressions F    also run every "ARCH SEED" line of F (default: tests/randguest/regressions.txt)
#   --known F          known failures, "ARCH SEED issue-N what" (default: tests/randguest/known-failures.txt)
#   --jobs N           parallel runs (default $RANDGUEST_JOBS or the number of CPUs)
#   --timeout S        wall-clock bound of one run (default $RANDGUEST_TIMEOUT or 20)
#   --max-insns N      per run (default 20000); --max-cycles is 50000000
#   --determinism K    run every K-th guest twice and compare trace, console, output and status
#                      (default 25; 0: never)
#   --out DIR          failing images, logs and reproducers (default BUILD_DIR/randguest-failures)
#   --pmusim PATH      the simulator (default BUILD_DIR/pmusim; the self-test passes a fake one)
#   --results FILE     also append every guest's RESULT line to FILE as it comes
#
# The worker, BUILD_DIR/tests/randguest/rgrun (rgrun.c), generates each guest, picks the run's
# options from the seed (1 or 2 CPUs, a trace on every third, CPU models, small quanta,
# --icount-check, --check-patching, --icache=strict, --strict, images without exception tables),
# runs pmusim under the bound and classifies the run.  A guest passes when pmusim exits with a
# documented status — 0, 1, 3, 4, 6 or an odd guest exit status ((code << 1) | 1) — and prints
# neither "internal error" nor a sanitizer report.  It fails on a signal, a hang past the bound,
# status 5 (internal error), status 2 (pmusim refused what the generator made), 7 (an output was
# lost), any other status, a sanitizer report, or two runs of the same seed that differ.  The
# seed fixes the whole run, so the reproducer printed for a failure is exact.  Exit status: 0 when
# no guest failed (known failures excepted), 1 otherwise, 2 on bad usage.
set -u

usage() {
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "run.sh: no build directory $1" >&2; exit 2; }
shift
SRCDIR=$(cd "$(dirname "$0")" && pwd)
ARCHES="x86_64 arm64 ppc32"
COUNT=${RANDGUEST_COUNT:-10000}
FIRST=${RANDGUEST_SEED:-0}
REGRESSIONS=$SRCDIR/regressions.txt
KNOWN=$SRCDIR/known-failures.txt
JOBS=${RANDGUEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
TIMEOUT=${RANDGUEST_TIMEOUT:-20}
MAXINSNS=20000
DET=25
OUT=$BUILD/randguest-failures
PMUSIM=$BUILD/pmusim
KEEP=/dev/null
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
        --arch) ARCHES=$(echo "$2" | tr ',' ' ') ;;
        --count) COUNT=$2 ;;
        --first) FIRST=$2 ;;
        --regressions) REGRESSIONS=$2 ;;
        --known) KNOWN=$2 ;;
        --jobs) JOBS=$2 ;;
        --timeout) TIMEOUT=$2 ;;
        --max-insns) MAXINSNS=$2 ;;
        --determinism) DET=$2 ;;
        --out) OUT=$2 ;;
        --pmusim) PMUSIM=$2 ;;
        --results) KEEP=$2 ;;
        *) usage ;;
    esac
    shift 2
done
for n in "$COUNT" "$FIRST" "$JOBS" "$TIMEOUT" "$MAXINSNS" "$DET"; do
    case $n in ''|*[!0-9]*) echo "run.sh: not a number: $n" >&2; exit 2 ;; esac
done
[ "$JOBS" -ge 1 ] && [ "$TIMEOUT" -ge 1 ] && [ "$MAXINSNS" -ge 1 ] || { echo "run.sh: --jobs, --timeout and --max-insns must be positive" >&2; exit 2; }
RGRUN=$BUILD/tests/randguest/rgrun
[ -x "$RGRUN" ] || { echo "run.sh: $RGRUN is missing (build the tree first)" >&2; exit 2; }
[ -x "$PMUSIM" ] || { echo "run.sh: $PMUSIM is missing (build the tree first)" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
PMUSIM=$(cd "$(dirname "$PMUSIM")" && pwd)/$(basename "$PMUSIM")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/randguest.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Sanitizer builds: reports go to stderr (rgrun looks for them), with a status of their own.
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

# "ARCH SEED" of the lines of a list file (comments and blank lines skipped)
list_of() {
    [ -f "$1" ] && sed -e 's/#.*//' "$1" | awk 'NF >= 2 { print $1, $2 }'
}

echo "random guests: $ARCHES, seeds $FIRST..$((FIRST + COUNT - 1)) plus the listed ones, $JOBS jobs," \
     "--max-insns $MAXINSNS, ${TIMEOUT}s bound (pmusim: $PMUSIM)"
RESULTS=$WORK/results
: >"$RESULTS"
total_start=$(date +%s%N)
for arch in $ARCHES; do
    case $arch in x86_64|arm64|ppc32) ;; *) echo "run.sh: unknown architecture $arch" >&2; exit 2 ;; esac
    {
        awk -v a="$arch" -v f="$FIRST" -v n="$COUNT" 'BEGIN { for (i = 0; i < n; i++) printf "%s %d\n", a, f + i }'
        { list_of "$REGRESSIONS"; list_of "$KNOWN"; } | awk -v a="$arch" -v lo="$FIRST" -v hi=$((FIRST + COUNT)) \
            '$1 == a && ($2 < lo || $2 >= hi) { print }'
    } | sort -u -k2,2n >"$WORK/todo.$arch"
    n=$(wc -l <"$WORK/todo.$arch")
    t0=$(date +%s%N)
    # 8 guests per worker process; JOBS workers at a time.
    xargs -P "$JOBS" -n 16 "$RGRUN" --pmusim "$PMUSIM" --work "$WORK" --out "$OUT" --timeout "$TIMEOUT" \
        --max-insns "$MAXINSNS" --determinism "$DET" <"$WORK/todo.$arch" | tee -a "$KEEP" >>"$RESULTS"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ "$ms" -gt 0 ] || ms=1
    done_n=$(awk -v a="$arch" '$1 == "RESULT" && $2 == a' "$RESULTS" | wc -l)
    echo "$arch: $done_n guests in $((ms / 1000)).$((ms % 1000 / 100))s" \
         "($((done_n * 1000 / ms)).$((done_n * 10000 / ms % 10)) guests/s with $JOBS jobs)"
    awk -v a="$arch" '$1 == "RESULT" && $2 == a && $5 == "PASS" { s[$4]++ }
        END { line = "  exit statuses of passing runs:"; for (k in s) line = line " " k "=" s[k]; print line }' "$RESULTS"
    if [ "$done_n" -ne "$n" ]; then
        echo "  $((n - done_n)) guests gave no result (worker died?)"
        echo "RESULT $arch - - LOST 0" >>"$RESULTS"
    fi
done
total_ms=$(( ($(date +%s%N) - total_start) / 1000000 ))

# Failures, split into known ones (listed with their issue) and new ones.
fails=0
known=0
awk '$1 == "RESULT" && $5 != "PASS"' "$RESULTS" | sort -k2,2 -k3,3n >"$WORK/failed"
while read -r _ arch seed st verdict ms; do
    issue=$( [ -f "$KNOWN" ] && sed -e 's/#.*//' "$KNOWN" | awk -v a="$arch" -v s="$seed" '$1 == a && $2 == s { $1 = ""; $2 = ""; print; exit }')
    if [ -n "$issue" ]; then
        known=$((known + 1))
        echo "KNOWN $verdict: $arch seed $seed (status $st):$issue"
        continue
    fi
    fails=$((fails + 1))
    echo "FAIL $verdict: $arch seed $seed (status $st, ${ms} ms)"
    if [ -f "$OUT/$arch-$seed.cmd" ]; then
        echo "  reproduce: $(sed -n 1p "$OUT/$arch-$seed.cmd")"
        echo "  image:     $BUILD/tests/randguest/$(sed -n 2p "$OUT/$arch-$seed.cmd")"
        grep -E -m 3 'internal error|Sanitizer|runtime error:|icount-check' "$OUT/$arch-$seed.err" | sed 's/^/  | /'
    fi
done <"$WORK/failed"
# Known failures that pass now.
list_of "$KNOWN" | while read -r arch seed; do
    if awk -v a="$arch" -v s="$seed" '$1 == "RESULT" && $2 == a && $3 == s && $5 == "PASS" { f = 1 } END { exit !f }' "$RESULTS"; then
        echo "NOW PASSES: $arch seed $seed is listed in $(basename "$KNOWN"): remove it (and add it to regressions.txt)"
    fi
done
# New failures by kind and architecture.
{ list_of "$KNOWN" | sed 's/^/KNOWN /'; cat "$RESULTS"; } |
    awk '$1 == "KNOWN" { known[$2 " " $3] = 1; next }
         $1 == "RESULT" && $5 != "PASS" && !(($2 " " $3) in known) { n[$5 " " $2]++ }
         END { line = ""; for (k in n) line = line " " k "=" n[k]; if (line != "") print "failures by kind:" line }'
all=$(grep -c '^RESULT' "$RESULTS")
echo "random guests: $all runs in $((total_ms / 1000)).$((total_ms % 1000 / 100))s, $fails failed, $known known failures"
[ "$fails" -eq 0 ] || echo "failing images, logs and reproducers: $OUT"
[ "$fails" -eq 0 ]
