#!/bin/sh
# --console-in stdin (live), --record and --replay (docs/guest-abi.md, "Record and replay").
# The echo guests (tests/e2e/data/echo-*.S: the PL011 on arm64, the 16550 on x86_64 and
# ppc32; echo-irq-arm64.S through the GICv3) are fed live through a pipe that a shell writes
# with pauses, so the bytes arrive while the guest runs, at cycles the host decided; the run is
# recorded, then replayed twice: console, trace and --stats byte for byte the recorded run's,
# and a replay recorded again gives the same log.  A checkpoint taken in the middle of a replay,
# restored with the replay, continues to the same end; a log recorded from there replays from
# that checkpoint.  --console-in FILE and a regular file on standard input are read whole as
# --console-input reads them.  A log that is truncated, corrupted, from another machine, of
# another run at a checkpoint, or whose bytes cannot arrive where they were logged is refused
# naming the file and the offset; SIGTERM during a live run leaves a complete log.  A terminal
# sends each key as typed and gets its modes back.
. "$(dirname "$0")/lib.sh" "$@"

DATA=$(dirname "$0")/data
RUN_TIMEOUT=120

# the guests' ends: PSCI SYSTEM_OFF on arm64, isa-debug-exit with 0 elsewhere
want_status() {
    case $1 in arm64) echo 0 ;; *) echo 1 ;; esac
}

# live: the input, in three pieces with pauses: before the guest is up, then while it polls
live() {
    sleep 0.2
    printf 'ab'
    sleep 0.3
    printf 'cd\nline two\n'
    sleep 0.2
    printf '\004'
}

# u64 FILE OFFSET: the little-endian 64-bit number at OFFSET
u64() {
    od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

# entries LOG: the log's header size (44 + the UART path's length): where entries begin
entries() {
    echo $((44 + $(od -An -t u4 -j 40 -N 4 "$1" | tr -d ' ')))
}

printf 'echo: ready\nABCD\nLINE TWO\n\necho: 14 bytes\n' >"$T/echoed"

for g in x86_64 arm64 ppc32 irq smp; do
    cpus=
    case $g in
    irq) a=arm64 src=echo-irq-arm64.S opts="--defsym GICV3=1" ;;
    smp) a=arm64 src=echo-arm64.S opts="--defsym SMP=1" cpus="--cpus 2" ;;
    *) a=$g src=echo-$g.S opts= ;;
    esac
    # shellcheck disable=SC2086 # $opts: the assembler's options, split as written
    asm_raw "$a" "$DATA/$src" "$T/$g.bin" $opts
    base="run --arch $a --load-addr $(raw_load_addr "$a") $cpus --stats"
    # shellcheck disable=SC2086 # $base: the subcommand and the image's options, split as written
    live | timeout -k 10 "$RUN_TIMEOUT" "$PMUSIM" $base --trace "$T/$g-rec.trace" --console-in stdin \
        --record "$T/$g.log" "$T/$g.bin" >"$T/$g-rec.out" 2>"$T/$g-rec.err"
    echo $? >"$T/$g-rec.status"
    check "$g: live run: exit status $(cat "$T/$g-rec.status")" [ "$(cat "$T/$g-rec.status")" = "$(want_status "$a")" ]
    check "$g: live run: the input echoed" cmp -s "$T/$g-rec.out" "$T/echoed"
    e=$(entries "$T/$g.log")
    gap=$(($(u64 "$T/$g.log" $((e + 2 * 16 + 8))) - $(u64 "$T/$g.log" $((e + 16 + 8)))))
    check "$g: 'c' arrived a pause after 'b' ($gap cycles)" [ "$gap" -gt 100000 ]
    check "$g: the log has the 15 bytes taken" [ "$(u64 "$T/$g.log" $((e + 15 * 16 + 8)))" = 15 ]
    for r in 1 2; do
        # shellcheck disable=SC2086
        run "$T/$g-rep$r" $base --trace "$T/$g-rep$r.trace" --replay "$T/$g.log" "$T/$g.bin"
        check "$g: replay $r: the same status" cmp -s "$T/$g-rec.status" "$T/$g-rep$r.status"
        check "$g: replay $r: the same console" cmp -s "$T/$g-rec.out" "$T/$g-rep$r.out"
        check "$g: replay $r: the same trace" cmp -s "$T/$g-rec.trace" "$T/$g-rep$r.trace"
        check "$g: replay $r: the same counts" cmp -s "$T/$g-rec.err" "$T/$g-rep$r.err"
    done
    # shellcheck disable=SC2086
    run "$T/$g-rerec" $base --replay "$T/$g.log" --record "$T/$g-again.log" "$T/$g.bin"
    check "$g: a replay recorded again: the same log" cmp -s "$T/$g.log" "$T/$g-again.log"
done
check "irq: interrupts taken, one a piece at least" [ "$(grep -c ' interrupt ' "$T/irq-rec.trace")" -ge 3 ]
check "smp: cpu1 echoed" grep -q 'cpu1: .*exit=psci-system-off' "$T/smp-rec.err"

# Two CPUs, the input arriving on cpu1's clock (CPU 0 runs first in every round and never
# touches the UART): a file's input recorded, then replayed.
asm_raw arm64 "$DATA/echo-arm64.S" "$T/smp2.bin" --defsym SMP=2
base="run --arch arm64 --load-addr 0x40080000 --cpus 2 --stats"
printf 'ab\004' >"$T/ab.in"
# shellcheck disable=SC2086
run "$T/smp2-rec" $base --trace "$T/smp2-rec.trace" --console-in "$T/ab.in" --record "$T/smp2.log" "$T/smp2.bin"
e=$(entries "$T/smp2.log")
check "smp2: the bytes arrived on cpu1" [ "$(od -An -t u2 -j $((e + 2)) -N 2 "$T/smp2.log" | tr -d ' ')" = 1 ]
# shellcheck disable=SC2086
run "$T/smp2-rep" $base --trace "$T/smp2-rep.trace" --replay "$T/smp2.log" "$T/smp2.bin"
check "smp2: replayed: the same console" cmp -s "$T/smp2-rec.out" "$T/smp2-rep.out"
check "smp2: replayed: the same trace" cmp -s "$T/smp2-rec.trace" "$T/smp2-rep.trace"
check "smp2: replayed: the same counts" cmp -s "$T/smp2-rec.err" "$T/smp2-rep.err"
check "smp2: a log for two CPUs on one: status 2" sh -c "\"$PMUSIM\" run --arch arm64 --load-addr 0x40080000 --replay $T/smp2.log $T/smp2.bin 2>&1 >/dev/null | grep -q 'offset 12: the log was recorded on a different machine'"

# A checkpoint in the middle of a replay (between 'b' and 'c'), restored with the replay: the
# console, the trace after the checkpoint, the counts and the status of the recorded run.
base="run --arch arm64 --load-addr 0x40080000 --stats"
for g in arm64 irq; do
    e=$(entries "$T/$g.log")
    mid=$((($(u64 "$T/$g.log" $((e + 16 + 8))) + $(u64 "$T/$g.log" $((e + 2 * 16 + 8)))) / 2))
    # shellcheck disable=SC2086
    run "$T/$g-save" $base --replay "$T/$g.log" --save-at "$mid:$T/$g-mid.ck" "$T/$g.bin"
    # shellcheck disable=SC2086
    run "$T/$g-rest" $base --trace "$T/$g-rest.trace" --replay "$T/$g.log" --restore "$T/$g-mid.ck" "$T/$g.bin"
    check "$g: checkpoint at cycle $mid written" [ -s "$T/$g-mid.ck" ]
    check "$g: the saving replay is the recorded run" cmp -s "$T/$g-rec.out" "$T/$g-save.out"
    same_end "$g: replay" "$T/$g-rec" "$T/$g-rest"
done
check "irq: the restored trace has interrupts" grep -q ' interrupt ' "$T/irq-rest.trace"
a=arm64
img="$T/$a.bin"
e=$(entries "$T/$a.log")
# a log recorded from the checkpoint starts there and replays from it
# shellcheck disable=SC2086
run "$T/rest-rec" $base --replay "$T/$a.log" --restore "$T/$a-mid.ck" --record "$T/from-mid.log" "$img"
check "a log from the checkpoint starts at input byte 2" [ "$(u64 "$T/from-mid.log" 24)" = 2 ]
# shellcheck disable=SC2086
run "$T/rest2" $base --replay "$T/from-mid.log" --restore "$T/$a-mid.ck" "$img"
check "that log replayed from the checkpoint: the same console" cmp -s "$T/$a-rest.out" "$T/rest2.out"
check "that log replayed from the checkpoint: the same counts" cmp -s "$T/$a-rest.err" "$T/rest2.err"
# shellcheck disable=SC2086
run "$T/nock" $base --replay "$T/from-mid.log" "$img"
check "that log without the checkpoint: status 2" [ "$(cat "$T/nock.status")" = 2 ]
check "that log without the checkpoint: said" grep -q -- "--replay $T/from-mid.log: offset 24: the log starts at input byte 2" "$T/nock.err"
# the log of another run at that checkpoint: another input (read whole) recorded
printf 'xy\004' >"$T/other.in"
# shellcheck disable=SC2086
run "$T/other" $base --console-in "$T/other.in" --record "$T/other.log" "$img"
# shellcheck disable=SC2086
run "$T/wrongrun" $base --replay "$T/other.log" --restore "$T/$a-mid.ck" "$img"
check "the log of another run at the checkpoint: status 2" [ "$(cat "$T/wrongrun.status")" = 2 ]
check "the log of another run at the checkpoint: said" grep -q -- "--replay $T/other.log: offset [0-9]*: the log's input up to byte 2 is not the input of the checkpoint's run" "$T/wrongrun.err"

# --console-in FILE and a regular file on standard input: read whole, as --console-input
printf 'hello\n\004' >"$T/hello.in"
# shellcheck disable=SC2086
run "$T/old" $base --console-input "$T/hello.in" "$img"
# shellcheck disable=SC2086
run "$T/file" $base --console-in "$T/hello.in" "$img"
# shellcheck disable=SC2086
timeout -k 10 "$RUN_TIMEOUT" "$PMUSIM" $base --console-in stdin "$img" <"$T/hello.in" >"$T/stdin.out" 2>"$T/stdin.err"
for s in file stdin; do
    check "--console-in from a regular file ($s): the same console" cmp -s "$T/old.out" "$T/$s.out"
    check "--console-in from a regular file ($s): the same counts" cmp -s "$T/old.err" "$T/$s.err"
done
# a file's input recorded twice: the same log; replayed: the same run
for r in 1 2; do
    # shellcheck disable=SC2086
    run "$T/filerec$r" $base --console-in "$T/hello.in" --record "$T/file$r.log" "$img"
done
check "a file's input recorded twice: the same log" cmp -s "$T/file1.log" "$T/file2.log"
check "a file's input: the log closed at 0" [ "$(u64 "$T/file1.log" $(($(wc -c <"$T/file1.log") - 12)))" = 0 ]
# shellcheck disable=SC2086
run "$T/filerep" $base --replay "$T/file1.log" "$img"
check "a file's input replayed: the same console" cmp -s "$T/old.out" "$T/filerep.out"
check "a file's input replayed: the same counts" cmp -s "$T/old.err" "$T/filerep.err"

# A terminal (script(1)'s pseudo-terminal): each key reaches the guest as it is typed, without
# a line discipline's echo, ^D as the byte 0x04 (EOT ends the echo guest); the terminal's modes
# are as before the run after it.
if command -v script >/dev/null; then
    (sleep 0.5; printf 'hi\r\004') | timeout -k 10 "$RUN_TIMEOUT" script -q -e -c \
        "stty -a >$T/modes.before; $PMUSIM $base --console $T/tty.out --console-in stdin $img; echo status=\$?; stty -a >$T/modes.after" \
        "$T/tty.ts" >/dev/null
    check "terminal: the keys echoed by the guest, ^D as EOT" [ "$(tail -n 1 "$T/tty.out")" = "echo: 3 bytes" ]
    check "terminal: the run ended by the guest" grep -q "status=0" "$T/tty.ts"
    check "terminal: no echo of the keys by the terminal" [ "$(sed '/^Script /d' "$T/tty.ts" | grep -c 'hi')" = 0 ]
    check "terminal: its modes restored" cmp -s "$T/modes.before" "$T/modes.after"
fi

# Refusals: status 2, the file and the offset named, nothing run.
refused() {
    name=$1 what=$2
    shift 2
    # shellcheck disable=SC2086
    run "$T/$name" $base "$@" "$img"
    check "$name: status 2" [ "$(cat "$T/$name.status")" = 2 ]
    check "$name: said" grep -q -- "$what" "$T/$name.err"
}
size=$(wc -c <"$T/$a.log")
head -c $((size - 10)) "$T/$a.log" >"$T/trunc.log"
refused truncated "--replay $T/trunc.log: offset $((size - 10)): truncated log" --replay "$T/trunc.log"
head -c $((e + 40)) "$T/$a.log" >"$T/trunc2.log"
refused truncated-entry "--replay $T/trunc2.log: offset $((e + 40)): truncated log (in an entry; no end marker)" \
    --replay "$T/trunc2.log"
cp "$T/$a.log" "$T/corrupt.log"
printf 'Z' | dd of="$T/corrupt.log" bs=1 seek=$((e + 16 + 1)) conv=notrunc 2>/dev/null
refused corrupted "--replay $T/corrupt.log: offset $((size - 4)): CRC-32 mismatch" --replay "$T/corrupt.log"
refused other-quantum "--replay $T/$a.log: offset 12: the log was recorded on a different machine" \
    --quantum 1000 --replay "$T/$a.log"
refused other-image "--replay $T/x86_64.log: offset 12: the log was recorded on a different machine" \
    --replay "$T/x86_64.log"
refused not-a-log "--replay $T/hello.in: offset 0: not a pmusim console input log" --replay "$T/hello.in"
refused both "--replay and --console-in exclude each other" --replay "$T/$a.log" --console-in "$T/hello.in"
refused nothing-to-record "--record needs console input" --record "$T/none.log"
check "nothing-to-record: no log" [ ! -e "$T/none.log" ]
# a valid log whose first byte comes before the guest turned its receiver on: the run ends there
python3 - "$T/$a.log" "$T/early.log" "$e" <<'EOF'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
e = int(sys.argv[3])
struct.pack_into('<Q', b, e + 8, 10)
struct.pack_into('<I', b, len(b) - 4, zlib.crc32(bytes(b[:-4])))
open(sys.argv[2], 'wb').write(b)
EOF
refused diverged "--replay $T/early.log: offset $e: input byte 0 cannot arrive at cycle 10 of cpu0 as logged" \
    --trace "$T/diverged.trace" --replay "$T/early.log"
check "diverged: a diag in the trace" grep -q 'diag .*what=replay-diverged' "$T/diverged.trace"

# a log that cannot be written: status 7, the bytes lost named
# shellcheck disable=SC2086
run "$T/full" $base --console-in "$T/hello.in" --record /dev/full "$img"
check "--record /dev/full: status 7" [ "$(cat "$T/full.status")" = 7 ]
check "--record /dev/full: said" grep -q -- "--record /dev/full: write error: .* bytes lost" "$T/full.err"

# SIGTERM in a live run: the run ends, the log is complete (input still open: replayed to a limit)
mkfifo "$T/fifo"
# shellcheck disable=SC2086
timeout -k 10 "$RUN_TIMEOUT" "$PMUSIM" $base --console-in stdin --record "$T/term.log" "$img" <"$T/fifo" \
    >"$T/term.out" 2>"$T/term.err" &
pid=$!
exec 3>"$T/fifo"
printf 'ab' >&3
sleep 1
kill -TERM $pid
wait $pid
echo $? >"$T/term.status"
exec 3>&-
check "SIGTERM: status 143" [ "$(cat "$T/term.status")" = 143 ]
check "SIGTERM: the log ends with its end marker, input open" [ "$(u64 "$T/term.log" $(($(wc -c <"$T/term.log") - 12)))" = 18446744073709551615 ]
# shellcheck disable=SC2086
run "$T/termrep" $base --max-cycles 20000000 --replay "$T/term.log" "$img"
check "SIGTERM: the log replays (to --max-cycles: status 3)" [ "$(cat "$T/termrep.status")" = 3 ]
check "SIGTERM: the replay echoes the bytes" grep -q '^AB' "$T/termrep.out"
finish
