#!/bin/sh
# selftest.sh BUILD_DIR — the random-guest runner must report exactly the failures a fake pmusim
# makes: a crash, a hang, status 5, an internal-error message, sanitizer reports, status 2 and 7,
# a nondeterministic run and a signal-like status that is no guest exit; and pass a guest exit
# status above 128 and the ordinary statuses.  Known failures are reported as such, and a listed
# seed that passes is pointed out.
set -u
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/randguest-selftest.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0
fail() {
    FAILS=$((FAILS + 1))
    echo "FAIL: $*"
}

# The fake simulator: its behaviour is chosen by the seed in the image's path (.../ARCH-SEED/guest.bin).
cat >"$T/fake-pmusim" <<'EOF'
#!/bin/sh
trace= console= img=
while [ $# -gt 0 ]; do
    case $1 in
        --trace) trace=$2; shift ;;
        --console) console=$2; shift ;;
        --*) case $1 in --cpus|--arch|--load-addr|--max-insns|--max-cycles|--cpu-model|--quantum|--icache) shift ;; esac ;;
        run) ;;
        *) img=$1 ;;
    esac
    shift
done
seed=$(basename "$(dirname "$img")" | sed 's/.*-//')
[ -n "$console" ] && echo "console of $seed" >"$console"
[ -n "$trace" ] && echo "0 cpu0 cpu-start pc=0x0" >"$trace"
end() {    # as pmusim ends a run: the trace's exit line; on stderr, why, unless the guest ended it
    [ -n "$trace" ] && echo "9 cpu0 exit status=$1 reason=$2" >>"$trace"
    [ "$1" != 0 ] && [ "$2" != debug-exit ] && echo "pmusim: run ended: $2 (status $1)" >&2
    exit "$1"
}
case $seed in
    3) kill -SEGV $$ ;;
    4) sleep 30 ;;
    5) echo "pmusim: internal error on cpu0: engine stopped" >&2; end 5 internal-error ;;
    6) echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1" >&2; end 1 debug-exit ;;
    7) echo "sim/x.c:1:2: runtime error: signed integer overflow" >&2; end 3 max-insns ;;
    8) [ -n "$console" ] && date +%N >>"$console"; end 3 max-insns ;;
    9) echo "pmusim: bad input" >&2; exit 2 ;;
    10) kill -ABRT $$ ;;
    11) end 201 debug-exit ;;
    12) echo "pmusim: internal error on cpu1: uc_reg_read" >&2; end 4 all-cpus-asleep ;;
    13) echo "pmusim: --console: 12 bytes lost" >&2; end 7 output-lost ;;
    14) end 6 patching ;;
    15) end 7 debug-exit ;;         # the guest's own status 7 ((3 << 1) | 1), not a lost output
    16) end 5 semihosting-exit ;;
    *) end $(( seed % 2 ? 3 : 4 )) max-insns ;;
esac
EOF
chmod +x "$T/fake-pmusim"

run() {
    sh "$HERE/run.sh" "$BUILD" --arch x86_64 --first 0 --count 17 --jobs 2 --timeout 3 --determinism 8 \
        --regressions /dev/null --out "$T/out" --pmusim "$T/fake-pmusim" "$@" >"$T/log" 2>&1
}

# 1. Every failure, by seed and kind; the run fails.
run --known /dev/null
st=$?
[ $st -eq 1 ] || fail "runner exit status $st with failures (want 1)"
got=$(sed -n 's/^FAIL \([^:]*\): x86_64 seed \([0-9]*\).*/\2 \1/p' "$T/log" | sort -n | tr '\n' ',')
want="3 SIGNAL-11,4 HANG,5 INTERNAL-ERROR,6 SANITIZER,7 SANITIZER,8 NONDETERMINISTIC,9 BAD-INPUT,10 SIGNAL-6,12 INTERNAL-ERROR,13 OUTPUT-LOST,"
[ "$got" = "$want" ] || fail "failures reported: $got (want $want)"
grep -q "17 runs in" "$T/log" || fail "the summary does not count 17 runs"
grep -q "10 failed" "$T/log" || fail "the summary does not say 10 failed"
for s in 3 4 5; do
    [ -f "$T/out/x86_64-$s.bin" ] && [ -f "$T/out/x86_64-$s.cmd" ] || fail "seed $s: no image or reproducer kept"
    grep -q "reproduce: .*x86_64-$s.bin" "$T/log" || fail "seed $s: no reproducer printed"
done
grep -q "exit statuses of passing runs:.*201=1" "$T/log" || fail "a guest exit status above 128 did not pass"
for g in 7 5; do    # the guest's own odd statuses that are also pmusim's (output lost, internal error)
    grep -q "exit statuses of passing runs:.* $g=1" "$T/log" || fail "a guest exit status $g did not pass"
done

# 2. The same failures listed as known: reported as known, the run passes; a listed seed that
#    passes is pointed out.
{
    echo "# test list"
    for s in 3 4 5 6 7 8 9 10 12 13; do echo "x86_64 $s issue-10 selftest"; done
    echo "x86_64 1 issue-10 passes now"
} >"$T/known"
run --known "$T/known"
st=$?
[ $st -eq 0 ] || { fail "runner exit status $st with only known failures (want 0)"; cat "$T/log"; }
[ "$(grep -c '^KNOWN' "$T/log")" -eq 10 ] || fail "known failures not reported as KNOWN"
grep -q "NOW PASSES: x86_64 seed 1 " "$T/log" || fail "a known failure that passes is not pointed out"

# 3. A clean run passes and runs the regression seeds outside the range.
echo "x86_64 1000 # an old failure" >"$T/reg"
run --known /dev/null --regressions "$T/reg" --count 3 --first 0
st=$?
[ $st -eq 0 ] || fail "clean run: exit status $st"
grep -q "4 runs in" "$T/log" || fail "the regression seed was not run"

echo "selftest.sh: $FAILS failures"
[ $FAILS -eq 0 ]
