#!/bin/sh
# Never crash, never hang, never lose a file: the reproducers of issue 10 that are about runs,
# options and outputs, each a regression test.  (Device trees, checkpoints, the ELF sections
# and the MPC7450 have their own tests: test_bad_input, test_checkpoint, test_loader,
# test_pmu_mpc7450.)
. "$(dirname "$0")/lib.sh" "$@"

hello=$GUESTS/x86_64/hello.elf
status() { cat "$1.status"; }

# bytes FILE OFFSET OCTAL-ESCAPES: patch bytes into FILE (created if missing)
bytes() {
    printf "$3" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc 2>/dev/null
}

# ---- exceptions alternating between two vectors end as an exception loop (defect 5)
# ppc32: 0x0 is illegal (program check, 0x700); 0x700 is an FP load with MSR[FP] = 0 (FP
# unavailable, 0x800); 0x800 is illegal again: no instruction ever retires.
head -c 4096 /dev/zero >"$T/alt.bin"
bytes "$T/alt.bin" 0x700 '\310\000\000\000'
run "$T/alt" run --stats --trace "$T/alt.trace" --max-insns 1000 --arch ppc32 --load-addr 0 "$T/alt.bin"
check "alternating vectors: status 4, got $(status "$T/alt")" [ "$(status "$T/alt")" = 4 ]
check "alternating vectors: an exception loop" grep -q "exit=exception-loop" "$T/alt.err"
check "alternating vectors: both vectors seen" \
    sh -c "grep -q 'to=0x800' '$T/alt.trace' && grep -q 'to=0x700' '$T/alt.trace'"
check "alternating vectors: the trace stays small" [ "$(wc -c <"$T/alt.trace")" -lt 100000 ]

# ---- numbers are checked whole (defect 6)
for q in 18446744073709551615 " -1" -1 0 4294967297 1e3 12abc ""; do
    run "$T/q" run --quantum "$q" "$hello"
    check "--quantum '$q' refused" [ "$(status "$T/q")" = 2 ]
    check "--quantum '$q': one message naming the option" grep -q -- "^pmusim: --quantum" "$T/q.err"
done
for o in max-insns max-cycles; do
    for v in 99999999999999999999 4611686018427387905 " 5" +5; do
        run "$T/o" run "--$o" "$v" "$hello"
        check "--$o '$v' refused" [ "$(status "$T/o")" = 2 ]
    done
done
run "$T/sa" run --save-at 99999999999999999999:x.ck "$hello"
check "--save-at overflow refused" [ "$(status "$T/sa")" = 2 ]
run "$T/la" run --arch x86_64 --load-addr 0x10000000000000000 "$hello"
check "--load-addr overflow refused" [ "$(status "$T/la")" = 2 ]
run "$T/q32" run --quantum 4294967296 --max-insns 100 "$hello"
check "--quantum 2^32 accepted" [ "$(status "$T/q32")" = 3 ]
run "$T/last" run "$hello" --frobnicate
check "an unknown last option is unknown, not short of a value" grep -q "unknown option --frobnicate" "$T/last.err"
run "$T/help" --help
check "--help lists --semihosting" grep -q -- "--semihosting" "$T/help.out"
check "--help lists --icount-check" grep -q -- "--icount-check" "$T/help.out"
check "--help lists --trace-dat" grep -q -- "--trace-dat FILE" "$T/help.out"

# ---- a signal ends any run within a second, the trace complete up to its exit line (defect 6)
# interrupt NAME SIGNAL ARGS...: start a run, wait until it is busy, signal it, time the exit.
interrupt() {
    name=$1 sig=$2
    shift 2
    "$PMUSIM" run --trace "$T/$name.trace" "$@" >"$T/$name.out" 2>"$T/$name.err" &
    pid=$!
    # busy = its outputs are open (the trace's temporary exists), plus a moment: on a loaded
    # machine a fixed sleep can land before that, and the run then ends with no trace at all
    n=0
    while ! ls "$T/$name.trace".pmusim-* >/dev/null 2>&1 && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
    sleep 0.3
    kill -"$sig" $pid
    n=0
    while kill -0 $pid 2>/dev/null && [ $n -lt 100 ]; do sleep 0.01; n=$((n + 1)); done
    alive=0
    kill -0 $pid 2>/dev/null && alive=1 && kill -KILL $pid
    wait $pid
    st=$?
    check "$name: SIGTERM/SIGINT ends it within a second" [ $alive = 0 ]
    want=143
    [ "$sig" = INT ] && want=130
    check "$name: exit status $st, expected $want" [ "$st" = "$want" ]
    check "$name: the trace ends with its exit line" \
        sh -c "tail -n 1 '$T/$name.trace' | grep -q 'machine exit status=$want reason=interrupted'"
}
printf '\353\376' >"$T/spin-x86.bin"                       # jmp .
printf '\000\000\000\024' >"$T/spin-a64.bin"               # b .
head -c 4096 /dev/zero >"$T/storm.bin"                     # sc at 0 and at the 0xC00 vector
bytes "$T/storm.bin" 0 '\104\000\000\002'
bytes "$T/storm.bin" 0xc00 '\104\000\000\002'
interrupt chain TERM --arch x86_64 --load-addr 0x100000 "$T/spin-x86.bin"
interrupt chain-int INT --arch x86_64 --load-addr 0x100000 "$T/spin-x86.bin"
interrupt storm TERM --arch ppc32 --load-addr 0 "$T/storm.bin"
interrupt halted TERM --cpus 4 --arch arm64 --load-addr 0x40080000 "$T/spin-a64.bin"
interrupt quantum TERM --quantum 4294967296 --arch x86_64 --load-addr 0x100000 "$T/spin-x86.bin"
interrupt quantum-int INT --quantum 4294967296 --cpus 2 --arch arm64 --load-addr 0x40080000 "$T/spin-a64.bin"

# ---- outputs never destroy inputs (defect 8)
cp "$hello" "$T/k.elf"
echo OLD >"$T/old"
cksum "$T/k.elf" "$T/old" >"$T/sums"
expect_refused() {      # expect_refused NAME PATTERN ARGS...
    name=$1 pattern=$2
    shift 2
    run "$T/$name" run "$@"
    check "$name: status 2, got $(status "$T/$name")" [ "$(status "$T/$name")" = 2 ]
    check "$name: says '$pattern'" grep -q -- "$pattern" "$T/$name.err"
}
"$PMUSIM" run --save-at 1000:"$T/ck" --cpus 2 "$GUESTS/x86_64/smp.elf" >/dev/null 2>&1
cksum "$T/ck" >>"$T/sums"
expect_refused trace-is-checkpoint "are the same file" --trace "$T/ck" --restore "$T/ck" --cpus 2 "$GUESTS/x86_64/smp.elf"
expect_refused trace-is-kernel "are the same file" --trace "$T/k.elf" "$T/k.elf"
expect_refused save-is-kernel "are the same file" --save-at "10:$T/k.elf" "$T/k.elf"
expect_refused samples-is-kernel "are the same file" --samples "$T/k.elf" "$T/k.elf"
ln -s "$T/k.elf" "$T/link.elf"
expect_refused link-is-kernel "are the same file" --trace "$T/link.elf" "$T/k.elf"
expect_refused trace-is-console "another output" --trace "$T/out" --console "$T/out" "$T/k.elf"
expect_refused trace-is-console2 "another output" --trace "$T/out" --console "$T/./out" "$T/k.elf"
head -c 100 "$T/ck" >"$T/bad.ck"
expect_refused bad-restore "bad.ck" --trace "$T/old" --restore "$T/bad.ck" "$T/k.elf"
cksum "$T/k.elf" "$T/old" "$T/ck" >"$T/sums2"
check "inputs and old outputs unchanged" cmp -s "$T/sums" "$T/sums2"
check "no temporary files left" [ -z "$(ls "$T" | grep pmusim-)" ]
run "$T/nulls" run --trace /dev/null --console /dev/null "$T/k.elf"
check "/dev/null may be two outputs" [ "$(status "$T/nulls")" = 1 ]

# ---- a lost output byte is an error with its own status (defect 9)
expect_lost() {         # expect_lost NAME ARGS...: the file is /dev/full
    name=$1
    shift
    run "$T/$name" run "$@"
    check "$name: status 7, got $(status "$T/$name")" [ "$(status "$T/$name")" = 7 ]
    check "$name: one message naming the file and the error" \
        [ "$(grep -c "^pmusim: .*/dev/full: write error" "$T/$name.err")" = 1 ]
}
expect_lost console-full --console /dev/full "$T/k.elf"
expect_lost trace-full --trace /dev/full "$T/k.elf"
expect_lost samples-full --samples /dev/full "$GUESTS/ppc32/oprofile.elf"
expect_lost guest-trace-full --guest-trace /dev/full "$GUESTS/x86_64/ftrace.elf"
expect_lost save-at-full --max-cycles 2000000 --save-at 100000:/dev/full "$GUESTS/x86_64/loop.elf"
# a regular file on a full disk (a file size limit stands in for it): the old file survives
echo OLD >"$T/big.trace"
(ulimit -f 1; trap '' XFSZ; exec "$PMUSIM" run --trace "$T/big.trace" "$GUESTS/x86_64/trap.elf") \
    >/dev/null 2>"$T/fsz.err"
check "file size limit: status 7" [ $? = 7 ]
check "file size limit: message" grep -q "^pmusim: --trace .*write error" "$T/fsz.err"
check "file size limit: the old trace is intact" [ "$(cat "$T/big.trace")" = OLD ]
check "file size limit: no temporary left" [ -z "$(ls "$T" | grep pmusim-)" ]
# every whole-file output goes through a temporary file: a failed write leaves the old file
for o in "--samples:ppc32/oprofile.elf" "--guest-trace:x86_64/ftrace.elf" "--save-at 100000::x86_64/loop.elf"; do
    opt=${o%%:*} elf=${o##*:}
    name=$(echo "$opt" | tr -dc 'a-z')
    echo OLD >"$T/old.$name"
    case $opt in --save-at*) args="$opt:$T/old.$name" ;; *) args="$opt $T/old.$name" ;; esac
    # shellcheck disable=SC2086 # $args: an option and its value
    (ulimit -f 1; trap '' XFSZ; exec "$PMUSIM" run --max-cycles 20000000 $args "$GUESTS/$elf") >/dev/null 2>"$T/fsz-$name.err"
    st=$?
    check "$opt, file size limit: status 7 (got $st)" [ $st = 7 ]
    check "$opt, file size limit: the message names it" grep -q "^pmusim: ${opt%% *} .*write error" "$T/fsz-$name.err"
    check "$opt, file size limit: the old file is intact" [ "$(cat "$T/old.$name")" = OLD ]
done
check "file size limits: no temporary left" [ -z "$(ls "$T" | grep pmusim-)" ]
# an output named through a symbolic link: the link stays, its target gets the output
mkdir -p "$T/real"
echo OLD >"$T/real/t.trace"
ln -sf "$T/real/t.trace" "$T/link.trace"
run "$T/link" run --trace "$T/link.trace" "$GUESTS/x86_64/trap.elf"
check "--trace through a link: the link is still a link" [ -L "$T/link.trace" ]
check "--trace through a link: its target holds the trace" grep -q " exit status=" "$T/real/t.trace"
check "--trace through a link: no temporary left" [ -z "$(ls "$T/real" | grep pmusim-)" ]

# ---- instruction fetch from a device window is the architecture's fault (defect 10)
printf '\270\000\000\340\376\377\340' >"$T/dev-x86.bin"        # mov eax, 0xfee00000; jmp rax
printf '\000\040\241\322\000\000\037\326' >"$T/dev-a64.bin"   # movz x0, #0x900, lsl 16; br x0
printf '\074\140\200\000\174\151\003\246\116\200\004\040' >"$T/dev-ppc.bin"  # lis; mtctr; bctr
for x in "x86_64 0x100000 dev-x86" "arm64 0x40080000 dev-a64" "ppc32 0 dev-ppc"; do
    set -- $x
    run "$T/$3" run --icount-check --trace "$T/$3.trace" --arch "$1" --load-addr "$2" "$T/$3.bin"
    check "$1 fetch from a device: not an internal error (status $(status "$T/$3"))" [ "$(status "$T/$3")" != 5 ]
    check "$1 fetch from a device: a bus-error diag" grep -q "what=bus-error.*device window" "$T/$3.trace"
done

# ---- --icount-check counts faulting instructions as the block count does (defect 12)
for a in $ARCHES; do
    run "$T/ic-$a" run --icount-check "$GUESTS/$a/trap.elf"
    check "$a trap.elf --icount-check: no mismatch" grep -q "icount-check: cpu0 .* ok" "$T/ic-$a.err"
    check "$a trap.elf --icount-check: not status 5" [ "$(status "$T/ic-$a")" != 5 ]
done
# ---- ppc32 instructions the engine must never run itself (found by random guests)
# mfspr r13, 285 (TBU is write-only): the engine would read a timebase it does not have
printf '\175\275\102\246\110\000\000\000' >"$T/tbu.bin"
run "$T/tbu" run --stats --trace "$T/tbu.trace" --arch ppc32 --load-addr 0 --max-insns 100 "$T/tbu.bin"
check "mfspr 285: no crash (status $(status "$T/tbu"))" [ "$(status "$T/tbu")" = 4 ]
check "mfspr 285: an illegal-instruction program check" grep -q "vector=0x700 .* info=0x8" "$T/tbu.trace"
# li r3, 0x30 (IR | DR); mtmsr r3; mftb r4; then spin: translation on with no BAT and no page
# table, so the next fetch is an ISI ("no translation", SRR1 0x40000000 with the saved IR|DR),
# whose vector (real mode, zeros) takes program checks until the exception loop limit
printf '\070\140\000\060\174\140\001\044\174\214\102\346\110\000\000\000' >"$T/ir.bin"
run "$T/ir" run --icount-check --trace "$T/ir.trace" --arch ppc32 --load-addr 0 --max-insns 100 "$T/ir.bin"
check "mtmsr IR|DR: the next fetch is an ISI, no translation" \
    grep -q "exception vector=0x400 .*from=0x8 .*info=0x40000030" "$T/ir.trace"
check "mtmsr IR|DR: the exception loop ends the run (status $(status "$T/ir"))" [ "$(status "$T/ir")" = 4 ]
check "mtmsr IR|DR: the count is exact" grep -q "icount-check: cpu0 .* ok" "$T/ir.err"
# lis r1, 0xdf80; stmw r30, 0(r1): a store multiple into nothing, with MSR[ME] = 0: a checkstop
printf '\074\040\337\200\277\301\000\000\176\101\053\056\110\000\000\000' >"$T/stmw.bin"
run "$T/stmw" run --icount-check --arch ppc32 --load-addr 0 --max-insns 100 "$T/stmw.bin"
check "stmw into nothing: a checkstop" [ "$(status "$T/stmw")" = 4 ]
check "stmw into nothing: --icount-check agrees" grep -q "icount-check: cpu0 .* ok" "$T/stmw.err"
# ---- an x86 exception frame pushed onto code (found by the sanitizer run): each 8-byte slot is
# one code write (the code-write record holds at most 16 bytes; a 40-byte frame overran it)
src=$(dirname "$0")/data/x86-exception-frame-on-code.S
as --64 -o "$T/frame.o" "$src" && objcopy -O binary "$T/frame.o" "$T/frame.bin"
run "$T/frame" run --trace "$T/frame.trace" --arch x86_64 --load-addr 0x100000 --max-insns 1000 "$T/frame.bin"
check "exception frame on code: the handler halts (status $(status "$T/frame"))" [ "$(status "$T/frame")" = 4 ]
check "exception frame on code: five 8-byte code writes" \
    [ "$(grep -c 'code-write .* size=8 old=9090909090909090' "$T/frame.trace")" = 5 ]
check "exception frame on code: then the #UD" grep -q "vector=0x6 name=#UD" "$T/frame.trace"
# ---- an x86 store into a later instruction of its own block, on a page not yet protected as
# code (found by random guest x86_64 3967): the engine runs the store again alone.  Inside a cut
# the cut stopped before it every time (a hang); it must retire it and end exactly.  The same with
# a stosb, whose store is implicit, inside a cut and in a whole run
src=$(dirname "$0")/data/x86-smc-restart.S
for kind in mov stos; do
    sym=; [ $kind = stos ] && sym="--defsym STOS=1"
    # shellcheck disable=SC2086
    as --64 $sym -o "$T/$kind.o" "$src" && objcopy -O binary "$T/$kind.o" "$T/$kind.bin"
    for n in 50 500; do
        RUN_TIMEOUT=60 run "$T/$kind$n" run --icount-check --arch x86_64 --load-addr 0x100000 --max-insns $n "$T/$kind.bin"
        check "$kind restart inside a cut, --max-insns $n: ends at the limit (status $(status "$T/$kind$n"))" \
            [ "$(status "$T/$kind$n")" = 3 ]
        check "$kind restart inside a cut, --max-insns $n: the count is exact" \
            grep -q "icount-check: cpu0 block-count=$n per-insn=$n ok" "$T/$kind$n.err"
    done
    RUN_TIMEOUT=60 run "$T/${kind}all" run --icount-check --arch x86_64 --load-addr 0x100000 "$T/$kind.bin"
    check "$kind restart, whole run: the guest halts (status $(status "$T/${kind}all"))" [ "$(status "$T/${kind}all")" = 4 ]
    check "$kind restart, whole run: the count is exact" grep -q "icount-check: cpu0 block-count=.* ok" "$T/${kind}all.err"
done
# ---- an arm64 guest turning its MMU on without page tables (found by fuzz_checkpoint): every
# fetch faults and no block ever starts; the exception-loop limit must still end the run
src=$(dirname "$0")/data/arm64-mmu-on-no-tables.S
aarch64-linux-gnu-as -o "$T/mmu.o" "$src" && aarch64-linux-gnu-objcopy -O binary "$T/mmu.o" "$T/mmu.bin"
run "$T/mmu" run --trace "$T/mmu.trace" --arch arm64 --load-addr 0x40080000 --max-cycles 100000 "$T/mmu.bin"
check "MMU on without tables: an exception loop (status $(status "$T/mmu"))" [ "$(status "$T/mmu")" = 4 ]
check "MMU on without tables: the exit record" grep -q "exit status=4 reason=exception-loop" "$T/mmu.trace"
# ---- arm64: a store into the block being executed, then an undefined instruction in it (found by
# random guests arm64 7846, 9498): the engine finishes its old translation; the block's count must
# still drop the faulting instruction (--quantum 1000: code pages are write-protected early)
src=$(dirname "$0")/data/arm64-smc-then-fault.S
aarch64-linux-gnu-as -o "$T/smc.o" "$src" && aarch64-linux-gnu-objcopy -O binary "$T/smc.o" "$T/smc.bin"
run "$T/smc" run --icount-check --trace "$T/smc.trace" --arch arm64 --load-addr 0x40080000 --quantum 1000 \
    --max-insns 5000 "$T/smc.bin"
check "store into the running block, then a fault: runs to the limit (status $(status "$T/smc"))" [ "$(status "$T/smc")" = 3 ]
check "store into the running block, then a fault: pmusim's code-write path was taken" grep -q "code-write" "$T/smc.trace"
check "store into the running block, then a fault: --icount-check agrees" grep -q "icount-check: cpu0 .* ok" "$T/smc.err"
# ---- arm64: ERET to AArch32 (found by random guest arm64 2611): pmusim's CPUs are AArch64-only,
# so it is an illegal exception return and the target takes the Illegal Execution state exception
src=$(dirname "$0")/data/arm64-eret-to-aarch32.S
aarch64-linux-gnu-as -o "$T/aa32.o" "$src" && aarch64-linux-gnu-objcopy -O binary "$T/aa32.o" "$T/aa32.bin"
run "$T/aa32" run --icount-check --trace "$T/aa32.trace" --arch arm64 --load-addr 0x40080000 --max-insns 1000 "$T/aa32.bin"
check "ERET to AArch32: the guest saw AArch64-only and EC 0x0e, and sleeps (status $(status "$T/aa32"))" \
    [ "$(status "$T/aa32")" = 4 ]
check "ERET to AArch32: one Illegal Execution state exception at the target" \
    [ "$(grep -c 'exception .* from=0x40080030 .* info=0x38000000' "$T/aa32.trace")" = 1 ]
check "ERET to AArch32: --icount-check agrees" grep -q "icount-check: cpu0 block-count=21 per-insn=21 ok" "$T/aa32.err"
# ---- x86 bytes Capstone 4 cannot decode (found by random guests): a VEX-prefixed CMOVB (c5 d6
# 42 c0; #UD on the hardware, an instruction to the engine), nop, nop, hlt.  Both counts follow
# the engine's instruction boundaries, and the hlt it reveals is still a trap site (the CPU sleeps)
printf '\305\326\102\300\220\220\364' >"$T/vex.bin"
run "$T/vex" run --icount-check --trace "$T/vex.trace" --arch x86_64 --load-addr 0x100000 --max-insns 100 "$T/vex.bin"
check "undecodable bytes: the hlt sleeps (status $(status "$T/vex"))" [ "$(status "$T/vex")" = 4 ]
check "undecodable bytes: counted by the engine's boundaries" grep -q "icount-check: cpu0 block-count=4 per-insn=4 ok" "$T/vex.err"
check "undecodable bytes: a diag where they execute" grep -q "what=undecodable pc=0x100000 .*4-byte" "$T/vex.trace"
# ---- x86 MOV to CR0 clearing PG in 64-bit mode (mov %cr0,%rax; btr $31,%rax; mov %rax,%cr0):
# #GP (Intel SDM vol. 2B), not a silent fall to 32-bit code; with no IDT it ends in a triple fault
printf '\017\040\300\110\017\272\360\037\017\042\300\220\364' >"$T/cr0.bin"
run "$T/cr0" run --icount-check --trace "$T/cr0.trace" --arch x86_64 --load-addr 0x100000 --max-insns 100 "$T/cr0.bin"
check "CR0.PG cleared: #GP at the mov (status $(status "$T/cr0"))" grep -q "what=triple-fault pc=0x100008" "$T/cr0.trace"
check "CR0.PG cleared: two instructions retired" grep -q "icount-check: cpu0 block-count=2 per-insn=2 ok" "$T/cr0.err"
finish
