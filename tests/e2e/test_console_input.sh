#!/bin/sh
# --console-input: bytes for the console UART's receiver (docs/guest-abi.md, "Console input").
# The echo guests (tests/e2e/data/echo-*.S: the PL011 on arm64, the 16550 on x86_64 and ppc32)
# program their UART, echo what arrives in capitals until EOT and count it.  On each
# architecture: the console is the input echoed, with no byte lost although the input is far
# longer than the receive FIFO; a second run, one with another quantum, one from standard input
# and one from a pipe give the same console, trace and counts byte for byte (the bytes arrive on
# exact instructions); a checkpoint taken while the input is arriving continues to the same
# end.  The same through the PL011's interrupt and the GICv3 or GICv2 (echo-irq-arm64.S).  Bad
# input (a missing file, a directory, the input named as an output, a machine without a UART)
# is refused with the option and the file named.
. "$(dirname "$0")/lib.sh" "$@"

DATA=$(dirname "$0")/data
RUN_TIMEOUT=120

# the guests' ends: PSCI SYSTEM_OFF on arm64, isa-debug-exit with 0 elsewhere
want_status() {
    case $1 in arm64) echo 0 ;; *) echo 1 ;; esac
}

# 243 bytes of input, then EOT; the expected console follows from it
{
    printf 'hello, world\n'
    printf 'The quick brown fox jumps over the lazy dog, 0123456789 times.\n'
    seq 1 40 | tr '\n' ' '
    printf '\nlast line\n'
} >"$T/text"
n=$(wc -c <"$T/text")
{ cat "$T/text"; printf '\004'; } >"$T/in"
{
    echo "echo: ready"
    tr 'a-z' 'A-Z' <"$T/text"
    printf '\necho: %d bytes\n' "$n"
} >"$T/expected"

for a in $ARCHES; do
    asm_raw "$a" "$DATA/echo-$a.S" "$T/echo-$a.bin"
    img="$T/echo-$a.bin"
    base="run --arch $a --load-addr $(raw_load_addr "$a")"
    # shellcheck disable=SC2086 # $base: the subcommand and the image's options, split as written
    for r in 1 2; do
        run "$T/$a-$r" $base --stats --trace "$T/$a-$r.trace" --console-input "$T/in" "$img"
    done
    check "$a: exit status $(cat "$T/$a-1.status")" [ "$(cat "$T/$a-1.status")" = "$(want_status "$a")" ]
    check "$a: the console is the input echoed" cmp -s "$T/$a-1.out" "$T/expected"
    check "$a: the same console again" cmp -s "$T/$a-1.out" "$T/$a-2.out"
    check "$a: the same trace again" cmp -s "$T/$a-1.trace" "$T/$a-2.trace"
    check "$a: the same counts again" cmp -s "$T/$a-1.err" "$T/$a-2.err"
    check "$a: no diagnostics" [ "$(grep -c ' diag ' "$T/$a-1.trace")" = 0 ]
    # shellcheck disable=SC2086
    run "$T/$a-q" $base --stats --quantum 997 --console-input "$T/in" "$img"
    check "$a: another quantum: the same console" cmp -s "$T/$a-1.out" "$T/$a-q.out"
    check "$a: another quantum: the same counts" cmp -s "$T/$a-1.err" "$T/$a-q.err"

    # shellcheck disable=SC2086
    timeout -k 10 "$RUN_TIMEOUT" "$PMUSIM" $base --stats --console-input - "$img" <"$T/in" >"$T/$a-stdin.out" 2>"$T/$a-stdin.err"
    # shellcheck disable=SC2086
    cat "$T/in" | timeout -k 10 "$RUN_TIMEOUT" "$PMUSIM" $base --stats --console-input - "$img" >"$T/$a-pipe.out" 2>"$T/$a-pipe.err"
    for s in stdin pipe; do
        check "$a: from $s: the same console" cmp -s "$T/$a-1.out" "$T/$a-$s.out"
        check "$a: from $s: the same counts" cmp -s "$T/$a-1.err" "$T/$a-$s.err"
    done

    # a checkpoint at half the run: the input is still arriving
    half=$(($(field cycles "$T/$a-1.err") / 2))
    # shellcheck disable=SC2086
    run "$T/$a-save" $base --stats --save-at "$half:$T/$a.ck" --console-input "$T/in" "$img"
    # shellcheck disable=SC2086
    run "$T/$a-rest" $base --stats --restore "$T/$a.ck" --console-input "$T/in" "$img"
    check "$a: checkpoint at cycle $half written" [ -s "$T/$a.ck" ]
    check "$a: saving run unchanged" cmp -s "$T/$a-1.out" "$T/$a-save.out"
    k=$(wc -c <"$T/$a-rest.out")
    tail -c "$k" "$T/$a-1.out" >"$T/$a-rest.tail"
    check "$a: restored console ($k bytes) is the tail" cmp -s "$T/$a-rest.tail" "$T/$a-rest.out"
    check "$a: restored counts equal" cmp -s "$T/$a-1.err" "$T/$a-rest.err"
    check "$a: restored status equal" cmp -s "$T/$a-1.status" "$T/$a-rest.status"
    # shellcheck disable=SC2086
    run "$T/$a-short" $base --restore "$T/$a.ck" --console-input /dev/null "$img"
    check "$a: restored with less input than the checkpoint read: status 2" [ "$(cat "$T/$a-short.status")" = 2 ]
done

# The PL011's interrupt through the GIC, the board's GICv3 and a GICv2 (QEMU virt's
# gic-version=2 map): the same console from a guest that receives and transmits on RXIS, RTIS
# and TXIS (a line at a time, so the transmitter has to be refilled on TXIS), the same run twice;
# a bound on the cycles, so that a lost interrupt fails the check instead of spinning.
"$PMUSIM" --dump-dtb --arch arm64 |
    sed -e 's/"arm,gic-v3"/"arm,cortex-a15-gic"/' -e '/#redistributor-regions/d' \
        -e 's/reg = <0x00 0x8000000 0x00 0x10000 0x00 0x80a0000 0x00 0xf60000>/reg = <0x00 0x8000000 0x00 0x10000 0x00 0x8010000 0x00 0x10000>/' \
        >"$T/gicv2.dts"
check "the GICv2 board is made" grep -q 'reg = <0x00 0x8000000 0x00 0x10000 0x00 0x8010000' "$T/gicv2.dts"
for v in 3 2; do
    case $v in
    3) defs="--defsym GICV3=1" machine="" ;;
    2) defs="" machine="--machine $T/gicv2.dts" ;;
    esac
    # shellcheck disable=SC2086 # the options, split as written
    aarch64-linux-gnu-as $defs -o "$T/echo-irq$v.o" "$DATA/echo-irq-arm64.S" &&
        aarch64-linux-gnu-objcopy -O binary "$T/echo-irq$v.o" "$T/echo-irq$v.bin"
    for r in 1 2; do
        # shellcheck disable=SC2086
        run "$T/irq$v-$r" run $machine --arch arm64 --load-addr 0x40080000 --max-cycles 100000000 \
            --stats --trace "$T/irq$v-$r.trace" --console-input "$T/in" "$T/echo-irq$v.bin"
    done
    w="interrupts (GICv$v)"
    check "$w: exit status $(cat "$T/irq$v-1.status")" [ "$(cat "$T/irq$v-1.status")" = 0 ]
    check "$w: the console is the input echoed" cmp -s "$T/irq$v-1.out" "$T/expected"
    check "$w: taken ($(grep -c ' interrupt ' "$T/irq$v-1.trace"))" [ "$(grep -c ' interrupt ' "$T/irq$v-1.trace")" -gt 20 ]
    check "$w: no diagnostics" [ "$(grep -c ' diag ' "$T/irq$v-1.trace")" = 0 ]
    check "$w: the same console again" cmp -s "$T/irq$v-1.out" "$T/irq$v-2.out"
    check "$w: the same trace again" cmp -s "$T/irq$v-1.trace" "$T/irq$v-2.trace"
    check "$w: the same counts again" cmp -s "$T/irq$v-1.err" "$T/irq$v-2.err"
done

# Bad input: one message naming the option and the file, status 2, before any output.
img="$T/echo-arm64.bin"
base="run --arch arm64 --load-addr 0x40080000"
# shellcheck disable=SC2086
run "$T/missing" $base --console-input "$T/no-such-input" "$img"
check "missing input: status 2" [ "$(cat "$T/missing.status")" = 2 ]
check "missing input: named" grep -q -- "--console-input $T/no-such-input: No such file or directory" "$T/missing.err"
# shellcheck disable=SC2086
run "$T/dir" $base --console-input "$T" "$img"
check "a directory: status 2" [ "$(cat "$T/dir.status")" = 2 ]
check "a directory: named" grep -q -- "--console-input $T: a directory" "$T/dir.err"
cp "$T/in" "$T/in.orig"
# shellcheck disable=SC2086
run "$T/same" $base --console "$T/in" --console-input "$T/in" "$img"
check "input named as the console output: status 2" [ "$(cat "$T/same.status")" = 2 ]
check "input named as the console output: refused" grep -q "are the same file" "$T/same.err"
check "input named as the console output: the input is intact" cmp -s "$T/in" "$T/in.orig"
"$PMUSIM" --dump-dtb --arch x86_64 | sed '/serial@i3f8 {/,/};/d' >"$T/no-uart.dts"
run "$T/nouart" run --machine "$T/no-uart.dts" --console-input "$T/in" "$GUESTS/x86_64/hello.elf"
check "no UART: status 2" [ "$(cat "$T/nouart.status")" = 2 ]
check "no UART: said" grep -q -- "--console-input $T/in: the machine has no console UART" "$T/nouart.err"
finish
