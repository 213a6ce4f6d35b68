#!/bin/sh
# Runaway guests always stop (issue 12): exceptions the engine raises over and over inside one
# engine call (a vector that faults itself, a handler that faults on its first instruction, two
# handlers faulting into each other, a storm that retires an instruction per exception) end at
# the exception-loop limit, --max-insns, --max-cycles, SIGTERM and --trace-limit, on all three
# architectures; the trace stays bounded, ends with its exit line and is the same on every run.
# Each run is bounded by `timeout` (lib.sh run; RUN_TIMEOUT): a runaway is a failed check, not a
# hung test.  The guests: tests/e2e/data/runaway-*.S.
. "$(dirname "$0")/lib.sh" "$@"

DATA=$(dirname "$0")/data
RUN_TIMEOUT=60
status() { cat "$1.status"; }
# the last line of a file, and its size
last() { tail -n 1 "$1"; }
size() { wc -c <"$1"; }

# asm ARCH NAME SYMBOL=VALUE: assemble runaway-ARCH.S into $T/NAME.bin
asm() {
    case $1 in
    x86_64) as --64 --defsym "$3" -o "$T/$2.o" "$DATA/runaway-x86_64.S" && objcopy -O binary "$T/$2.o" "$T/$2.bin" ;;
    arm64) aarch64-linux-gnu-as --defsym "$3" -o "$T/$2.o" "$DATA/runaway-arm64.S" &&
        aarch64-linux-gnu-objcopy -O binary "$T/$2.o" "$T/$2.bin" ;;
    ppc32) powerpc-linux-gnu-as -mregnames --defsym "$3" -o "$T/$2.o" "$DATA/runaway-ppc32.S" &&
        powerpc-linux-gnu-objcopy -O binary "$T/$2.o" "$T/$2.bin" ;;
    esac
}

load_addr() {
    case $1 in x86_64) echo 0x100000 ;; arm64) echo 0x40080000 ;; ppc32) echo 0 ;; esac
}

# guest ARCH GUEST NAME ARGS...: run $T/GUEST.bin of ARCH, outputs and the trace in $T/NAME.*
# (the arguments are kept for twice)
guest() {
    _a=$1 _g=$2 _n=$3
    shift 3
    echo "run --stats --trace $T/$_n.trace --arch $_a --load-addr $(load_addr "$_a") $* $T/$_g.bin" >"$T/$_n.args"
    # shellcheck disable=SC2046 # the arguments, split as written (no spaces in $T)
    run "$T/$_n" $(cat "$T/$_n.args")
}

# ends NAME STATUS REASON: the run ended with STATUS, its trace with the exit line for REASON
ends() {
    check "$1: exit status $2 (got $(status "$T/$1"))" [ "$(status "$T/$1")" = "$2" ]
    check "$1: the trace ends with its exit line ($(last "$T/$1.trace" | cut -c1-80))" \
        sh -c "tail -n 1 '$T/$1.trace' | grep -q ' exit status=$2 reason=$3\\( \\|\$\\)'"
}

# twice NAME: the run of NAME again gives the same trace, byte for byte
twice() {
    cp "$T/$1.trace" "$T/$1.first"
    # shellcheck disable=SC2046
    run "$T/$1-again" $(cat "$T/$1.args")
    check "$1: two runs give the same trace" cmp -s "$T/$1.trace" "$T/$1.first"
}

# signal SIG STATUS ARCH GUEST NAME ARGS...: start a runaway, wait until it is busy (its trace's
# temporary exists), send SIG; it must end by itself with STATUS, 128 + the signal (timeout stops
# it otherwise: 124 or 137)
signal() {
    sig=$1 want=$2 _a=$3 _g=$4 name=$5
    shift 5
    timeout -k 10 "$RUN_TIMEOUT" "$PMUSIM" run --trace "$T/$name.trace" --arch "$_a" --load-addr "$(load_addr "$_a")" \
        "$@" "$T/$_g.bin" >"$T/$name.out" 2>"$T/$name.err" &
    pid=$!
    n=0
    while ! ls "$T/$name.trace".pmusim-* >/dev/null 2>&1 && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
    sleep 0.3
    kill -"$sig" $pid       # timeout passes it on to pmusim
    wait $pid
    echo $? >"$T/$name.status"
    ends "$name" "$want" interrupted
    check "$name: it was a storm (exceptions in the trace)" grep -q " exception " "$T/$name.trace"
}

# between LO VALUE HI: LO <= VALUE < HI
between() {
    [ -n "$2" ] && [ "$2" -ge "$1" ] && [ "$2" -lt "$3" ]
}

for a in $ARCHES; do
    case $a in
    x86_64) loop=HANDLER=0x100100 fetch=HANDLER=0x123456789000 storm=HANDLER=0x100140 ;;
    arm64) loop=VBAR=0x40080800 fetch=VBAR=0x20000000 storm=VBAR=0x40081000 ;;
    ppc32) loop=MODE=0 fetch=MODE=1 storm=MODE=2 ;;
    esac
    asm $a $a-loop $loop && asm $a $a-fetch $fetch && asm $a $a-storm $storm ||
        { fail "$a: cannot assemble the guests"; continue; }

    # ---- nothing ever retires: the exception-loop limit ends it, with no other limit given
    for k in loop fetch; do
        guest $a $a-$k $a-$k
        ends $a-$k 4 exception-loop
        check "$a-$k: 64 entries, a small trace ($(size "$T/$a-$k.trace") bytes)" [ "$(size "$T/$a-$k.trace")" -lt 20000 ]
    done
    # ... and a --trace-limit reached before it, inside the same engine call (on x86 the #PF on
    # the vector's fetch never reaches a block boundary; the stop must hold in the exception hook)
    for k in loop fetch; do
        guest $a $a-$k $a-$k-tl --trace-limit 1000
        ends $a-$k-tl 3 trace-limit
        check "$a-$k-tl: at most 1000 bytes and the exit line" \
            [ "$(size "$T/$a-$k-tl.trace")" -le $((1000 + $(last "$T/$a-$k-tl.trace" | wc -c))) ]
    done

    # ---- the retiring storm never ends by itself: every limit and SIGTERM must end it.  Each run
    # but the SIGTERM one has a 50 MB --trace-limit as a safety net: a limit that does not hold
    # shows as reason=trace-limit rather than as a big file
    net="--trace-limit 50000000"
    guest $a $a-storm $a-storm --max-insns 20000 $net
    ends $a-storm 3 max-insns
    check "$a-storm --max-insns: exactly 20000 retired" grep -q "cpu0: insns=20000 " "$T/$a-storm.err"
    twice $a-storm

    guest $a $a-storm $a-storm-mc --max-cycles 2000000 $net
    ends $a-storm-mc 3 max-cycles
    check "$a-storm --max-cycles: stopped at 2000000 cycles or a trap's cost after" \
        between 2000000 "$(field cycles "$T/$a-storm-mc.err")" 2000200

    signal TERM 143 $a $a-storm $a-storm-term
    signal INT 130 $a $a-storm $a-storm-int

    # ---- --trace-limit: the run ends where the next line would pass the limit, with a message
    # naming the file and the limit; the file holds at most the limit and then the exit line
    for q in 100000 4294967296; do         # 2^32: the whole run is one engine call
        n=$a-storm-tl$q
        guest $a $a-storm $n --quantum $q --trace-limit 300000
        ends $n 3 trace-limit
        check "$n: at most 300000 bytes and the exit line" \
            [ "$(size "$T/$n.trace")" -le $((300000 + $(last "$T/$n.trace" | wc -c))) ]
        check "$n: more than 299000 bytes" [ "$(size "$T/$n.trace")" -gt 299000 ]
        check "$n: the message names the file and the limit" \
            grep -q "^pmusim: --trace $T/$n.trace: .*--trace-limit 300000 bytes" "$T/$n.err"
        check "$n: the exit line is the CPU's, without an instruction" \
            sh -c "tail -n 1 '$T/$n.trace' | grep -q '^[0-9]* cpu0 exit status=3 reason=trace-limit\$'"
        check "$n: --stats names the limit" grep -q "cpu0: .* exit=trace-limit" "$T/$n.err"
        twice $n
    done
    check "$a-storm --trace-limit: the quantum does not move the end" \
        cmp -s "$T/$a-storm-tl100000.trace" "$T/$a-storm-tl4294967296.trace"
    # 0: no limit
    guest $a $a-storm $a-storm-t0 --trace-limit 0 --max-insns 20000
    ends $a-storm-t0 3 max-insns
    check "$a-storm --trace-limit 0: the same trace as under a limit not reached" \
        cmp -s "$T/$a-storm-t0.trace" "$T/$a-storm.trace"
    rm -f "$T"/$a-*.trace "$T"/$a-*.first
done

# ---- the end is exact wherever the event that did not fit comes from: the instruction at hand is
# the last one retired, and --icount-check's per-instruction count agrees.  The limits put it at
# an x86 LAPIC write in the middle of a block (700: the access located a second time gave the
# block's start), at an interrupt entry between engine runs (6000: the run went on to the end of
# the quantum), and at stores to code (the ftrace guests)
for x in "x86_64/watchdog.elf 700 6000" "x86_64/ftrace.elf 1400 3300" "arm64/ftrace.elf 150 1400" \
    "ppc32/ftrace.elf 150 1400"; do
    set -- $x
    g=$1
    shift
    for l in "$@"; do
        n=exact-$(echo "$g" | tr / -)-$l
        run "$T/$n" run --icount-check --cpus 2 --console /dev/null --trace "$T/$n.trace" --trace-limit "$l" "$GUESTS/$g"
        ends "$n" 3 trace-limit
        check "$n: --icount-check agrees" sh -c "! grep -q MISMATCH '$T/$n.err'"
    done
done

# ---- the option: plain bytes from 0 to 2^62, in --help with its default
hello=$GUESTS/x86_64/hello.elf
for v in -1 " 5" 1K 4611686018427387905 ""; do
    run "$T/bad" run --trace-limit "$v" "$hello"
    check "--trace-limit '$v' refused" [ "$(status "$T/bad")" = 2 ]
    check "--trace-limit '$v': the message names the option" grep -q -- "^pmusim: --trace-limit" "$T/bad.err"
done
run "$T/help" --help
check "--help lists --trace-limit and its default" grep -q -- "--trace-limit BYTES.*" "$T/help.out"
check "--help gives the default" grep -q "default 1073741824 (1 GiB)" "$T/help.out"
# a run within the limit is the same with and without it
run "$T/h1" run --trace "$T/h1.trace" "$hello"
run "$T/h2" run --trace "$T/h2.trace" --trace-limit 0 "$hello"
check "hello: the same trace with the default limit and with none" cmp -s "$T/h1.trace" "$T/h2.trace"
finish
