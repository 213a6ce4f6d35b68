#!/bin/sh
# --save-at CYCLE:FILE then --restore FILE continues bit-identically: the restored run's console
# is the tail of the uninterrupted run's, its trace is the tail of the trace, its stderr (stats,
# the patch validator's summary and violations) and status are equal, and so are the files
# written at the end (--samples, --guest-trace); taking the checkpoint does not disturb the run.
# Options that carry state follow the rule of sim/checkpoint.h.  Broken checkpoints are refused
# with the file and offset named: every corrupted byte (CRC-32), other format versions, files
# that are not checkpoints or not regular files, sizes that do not match.
. "$(dirname "$0")/lib.sh" "$@"

# continuation NAME CYCLE ELF OUTPUTS OPTIONS...: ELF run uninterrupted (full), saving a
# checkpoint at CYCLE (save) and restored from it (rest), each with --stats, --trace, OPTIONS
# and its own copy of the OUTPUTS ("samples", "gt" for --guest-trace, "-" for none).
continuation() {
    w=$1 p=$T/$1 at=$2 elf=$3 outs=$4
    shift 4
    for r in full save rest; do
        o=""
        case $outs in *samples*) o="$o --samples $p-$r.samples" ;; esac
        case $outs in *gt*) o="$o --guest-trace $p-$r.gt" ;; esac
        case $r in
        save) o="$o --save-at $at:$p.ck" ;;
        rest) o="$o --restore $p.ck" ;;
        esac
        run "$p-$r" --stats --trace "$p-$r.trace" $o "$@" "$elf"
    done
    check "$w: checkpoint written" [ -s "$p.ck" ]
    check "$w: saving run unchanged (console)" cmp -s "$p-full.out" "$p-save.out"
    check "$w: saving run unchanged (trace)" cmp -s "$p-full.trace" "$p-save.trace"
    check "$w: saving run unchanged (stderr)" cmp -s "$p-full.err" "$p-save.err"
    same_end "$w" "$p-full" "$p-rest"
    for f in samples gt; do
        case $outs in *$f*) ;; *) continue ;; esac
        check "$w: saving run unchanged (--$f file)" cmp -s "$p-full.$f" "$p-save.$f"
        check "$w: restored --$f file equal" cmp -s "$p-full.$f" "$p-rest.$f"
    done
}

# The plain guests (the smp guests end near 105000 cycles; loop runs 10M+).
for a in $ARCHES; do
    for c in "smp 2 1" "smp 2 100000" "loop 1 3000000"; do
        set -- $c
        continuation "$a-$1-$3" "$3" "$GUESTS/$a/$1.elf" - --cpus "$2"
    done
done

# ppc32 under its MMU (BATs, segment registers, the hashed page table, DAR/DSISR: pmusim's own
# state): in supervisor state between the demand faults, and in problem state between the user
# program's faults (cycles 596597-598393: a short quantum puts a boundary there).
for at in 500000 597000; do
    continuation "ppc32-paging-$at" "$at" "$GUESTS/ppc32/paging.elf" - --quantum 1000
done

# ftrace, static keys and the validator: checkpoints while sites are being patched (x86 from
# 4.33M cycles, arm64 from 558K, ppc32 from 3.75M), with violations on both sides of the
# checkpoint in the faulty fixtures.
for at in 4332500 7000000; do
    continuation "x86_64-ftrace-$at" $at "$GUESTS/x86_64/ftrace.elf" gt --cpus 2 --strict
done
for at in 558500 700400; do
    continuation "arm64-ftrace-$at" $at "$GUESTS/arm64/ftrace.elf" gt --cpus 4 --strict --icache=strict \
        --bootargs ftrace=function_graph
done
for at in 3754500 3900000; do
    continuation "ppc32-ftrace-$at" $at "$GUESTS/ppc32/ftrace.elf" gt --cpus 2 --strict --icache=strict
done
continuation x86_64-bad-no-int3 4550000 "$GUESTS/x86_64/bad-no-int3.elf" - --cpus 2 --strict
continuation arm64-bad-no-icache 700000 "$GUESTS/arm64/bad-no-icache.elf" - --cpus 2 --strict --icache=strict
continuation ppc32-bad-no-icache 3900000 "$GUESTS/ppc32/bad-no-icache.elf" - --cpus 2 --strict --icache=strict
for w in x86_64-ftrace-4332500 arm64-ftrace-558500 ppc32-ftrace-3754500; do
    check "$w: patches before the checkpoint are in the restored summary" \
        grep -q "^  site .* [1-9][0-9]*: " "$T/$w-rest.err"
done
check "violations before the checkpoint are in the restored summary" \
    grep -q "^violation: cpu 0 cycle 4500553 " "$T/x86_64-bad-no-int3-rest.err"

# --samples: the samples and the exact profile of the whole run (cut short by --max-cycles:
# the profile runs every block through the slow path).
op=$GUESTS/ppc32/oprofile.elf
continuation ppc32-oprofile 50000000 "$op" samples --max-cycles 80000000
continuation x86_64-watchdog-samples 3000000 "$GUESTS/x86_64/watchdog.elf" samples --cpus 2 --max-cycles 8000000 \
    --bootargs "watchdog_thresh=1 watchdog_unit=ms"

# --icount-check after a restore compares the restored part.
run "$T/icount" --cpus 2 --icount-check --restore "$T/ppc32-smp-100000.ck" "$GUESTS/ppc32/smp.elf"
check "--icount-check after --restore: counts agree" [ "$(grep -c ' ok$' "$T/icount.err")" = 2 ]

# Options that carry state (sim/checkpoint.h): --icache must match; --check-patching and
# --samples may be dropped at restore (the run is then the uninterrupted run without them) but
# not added.
x86ft=$GUESTS/x86_64/ftrace.elf
run "$T/opt-plain-full" --cpus 2 --stats --trace "$T/opt-plain-full.trace" "$x86ft"
run "$T/opt-drop" --cpus 2 --stats --trace "$T/opt-drop.trace" --restore "$T/x86_64-ftrace-7000000.ck" "$x86ft"
check "checkpoint with --check-patching restored without: stats of the run without" \
    cmp -s "$T/opt-plain-full.err" "$T/opt-drop.err"
k=$(wc -l <"$T/opt-drop.trace")
tail -n "$k" "$T/opt-plain-full.trace" >"$T/opt-drop.tail"
check "checkpoint with --check-patching restored without: trace of the run without" \
    cmp -s "$T/opt-drop.tail" "$T/opt-drop.trace"
run "$T/opt-plain-save" --cpus 2 --save-at 7000000:"$T/plain.ck" "$x86ft"
run "$T/opt-add" --cpus 2 --strict --restore "$T/plain.ck" "$x86ft"
check "checkpoint without --check-patching restored with it: status 2" [ "$(cat "$T/opt-add.status")" = 2 ]
check "checkpoint without --check-patching restored with it: says so" \
    grep -q "plain.ck: the checkpoint was taken without --check-patching" "$T/opt-add.err"
a64ck=$T/arm64-ftrace-700400.ck
run "$T/opt-icache" --cpus 4 --strict --bootargs ftrace=function_graph --restore "$a64ck" "$GUESTS/arm64/ftrace.elf"
check "checkpoint with --icache=strict restored without: status 2" [ "$(cat "$T/opt-icache.status")" = 2 ]
check "checkpoint with --icache=strict restored without: says so" \
    grep -q "taken with --icache=strict; restore it with the same --icache" "$T/opt-icache.err"
run "$T/opt-samples-add" --cpus 2 --samples "$T/x.samples" --restore "$T/plain.ck" "$x86ft"
check "checkpoint without --samples restored with it: refused" \
    grep -q "taken without --samples" "$T/opt-samples-add.err"
run "$T/opt-samples-drop" --stats --max-cycles 80000000 --restore "$T/ppc32-oprofile.ck" "$op"
check "checkpoint with --samples restored without: the same stats" \
    cmp -s "$T/ppc32-oprofile-full.err" "$T/opt-samples-drop.err"

# ------------------------------------------------------------------ versions of the models

# A checkpoint written before a field was added (tests/e2e/data/README): its x86_64 section is
# of version 1, without the x87 state.  It restores; the x87 keeps the freshly created
# machine's state, which is what the guest had at that point (it has not touched the x87 yet),
# and the run ends as the uninterrupted run of the same guest does.
data=$SRC/tests/e2e/data
x87="--machine $data/x86-2mib.dtb --arch x86_64 --load-addr 0x100000"
x87bin=$data/x86-x87-after-checkpoint.bin
gzip -dc "$data/x86-before-x87-state.ck.gz" >"$T/old.ck"
run "$T/old-full" --stats --trace "$T/old-full.trace" $x87 "$x87bin"
run "$T/old-rest" --stats --trace "$T/old-rest.trace" $x87 --restore "$T/old.ck" "$x87bin"
check "checkpoint of an older x86_64 model: the guest ran to its end" grep -q "exit=debug-exit" "$T/old-full.err"
same_end "checkpoint of an older x86_64 model" "$T/old-full" "$T/old-rest"
# The same guest saved in its x87 phase by this pmusim: the x87 stack and control word go on.
continuation x86_64-x87 800000 "$x87bin" - $x87
# A ppc32 checkpoint written on the engine's 7450 model, its ppc32 section at version 1 (no
# SPRG4-7, no L3 registers; tests/e2e/data/README), before the guest's first dcbz.  It restores
# on the E600 model, and the run ends as the uninterrupted run does (the guest's own checks of
# dcbz and of the model's SPRs pass: status 1).
ppc="--quantum 10 --arch ppc32 --load-addr 0"
ppcbin=$data/ppc32-dcbz.bin
gzip -dc "$data/ppc32-before-e600.ck.gz" >"$T/oldppc.ck"
run "$T/oldppc-full" --stats --trace "$T/oldppc-full.trace" $ppc "$ppcbin"
run "$T/oldppc-rest" --stats --trace "$T/oldppc-rest.trace" $ppc --restore "$T/oldppc.ck" "$ppcbin"
check "checkpoint of an older ppc32 model: the guest passed its checks" [ "$(cat "$T/oldppc-full.status")" = 1 ]
same_end "checkpoint of an older ppc32 model" "$T/oldppc-full" "$T/oldppc-rest"

# A run that ends before the checkpoint point says the file was not written.
run "$T/late" --save-at 10000:"$T/late.ck" "$GUESTS/ppc32/smp.elf"
check "checkpoint never taken: no file" [ ! -e "$T/late.ck" ]
check "checkpoint never taken: says so" grep -q "late.ck was not written" "$T/late.err"

# ------------------------------------------------------------------ broken checkpoints

ck=$T/x86_64-smp-100000.ck
x86smp=$GUESTS/x86_64/smp.elf
size=$(wc -c <"$ck")

# refused NAME WHAT GREP OPTIONS...: status 2 and the message, in bounded time
refused() {
    n=$1 what=$2 want=$3
    shift 3
    _run=$T/$n
    timeout 60 "$PMUSIM" "$@" >"$_run.out" 2>"$_run.err"
    echo $? >"$_run.status"
    check "$what: status 2" [ "$(cat "$_run.status")" = 2 ]
    check "$what: says \"$want\"" grep -q "$want" "$_run.err"
}

# recrc FILE: the CRC-32 trailer recomputed after an edit (gzip's trailer holds the same CRC)
recrc() {
    n=$(($(wc -c <"$1") - 4))
    head -c "$n" "$1" >"$1.body"
    gzip -c "$1.body" | tail -c 8 | head -c 4 >"$1.crc"
    cat "$1.body" "$1.crc" >"$1"
}

# sanitizer_findings FILE...: a sanitizer build reported something
sanitizer_findings() {
    grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$@"
}

# flip FILE OFFSET: invert every bit of the byte at OFFSET
flip() {
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

head -c 100 "$ck" >"$T/trunc.ck"
refused trunc "truncated checkpoint" "trunc.ck: offset 24: the header says $size bytes, the file has 100" \
    --cpus 2 --restore "$T/trunc.ck" "$x86smp"
cp "$ck" "$T/long.ck"
printf 'x' >>"$T/long.ck"
refused long "checkpoint with a byte appended" "long.ck: offset 24: the header says $size bytes" \
    --cpus 2 --restore "$T/long.ck" "$x86smp"
refused foreign "foreign checkpoint" "different machine" --cpus 2 --restore "$ck" "$GUESTS/x86_64/hello.elf"
refused foreign2 "checkpoint with another --cpus" "different machine" --cpus 4 --restore "$ck" "$x86smp"
refused notck "not a checkpoint" "offset 0: not a pmusim checkpoint" --restore "$x86smp" "$x86smp"
: >"$T/empty.ck"
refused empty "empty file" "empty.ck: offset 0: not a pmusim checkpoint" --restore "$T/empty.ck" "$x86smp"

# Another format version: refused by its number, before anything else is read.
cp "$ck" "$T/v4.ck"
printf '\004\000\000\000' | dd of="$T/v4.ck" bs=1 seek=8 conv=notrunc 2>/dev/null
refused v4 "checkpoint of format version 4" "v4.ck: offset 8: checkpoint format version 4; this pmusim reads version 5" \
    --cpus 2 --restore "$T/v4.ck" "$x86smp"

# Not regular files: never read without end, never waited on.
refused devzero "/dev/zero" "/dev/zero: not a regular file" --restore /dev/zero "$x86smp"
mkfifo "$T/fifo"
refused fifo "a FIFO" "fifo: not a regular file" --restore "$T/fifo" "$x86smp"
: >"$T/huge.ck"
truncate -s 100G "$T/huge.ck" 2>/dev/null || dd of="$T/huge.ck" bs=1 seek=107374182399 count=0 2>/dev/null
refused huge "a 100 GiB file" "huge.ck: 107374182400 bytes: larger than any checkpoint" --restore "$T/huge.ck" "$x86smp"

# A value out of range in a file whose CRC is right: the first CPU section's payload starts at
# 106 (36-byte header, 51-byte machine section, 19-byte "cpu" section header) with the CPU
# state; 9 is no CpuState.
cp "$ck" "$T/badstate.ck"
printf '\011' | dd of="$T/badstate.ck" bs=1 seek=106 conv=notrunc 2>/dev/null
recrc "$T/badstate.ck"
refused badstate "invalid CPU state" "badstate.ck: offset 106: the cpu0 section is malformed (state)" \
    --cpus 2 --restore "$T/badstate.ck" "$x86smp"

# A section newer than this pmusim's model of it is refused, naming the section, both versions
# and the offset of its version (a CPU's sections are inside its cpu section).
ck87=$T/x86_64-x87.ck
at=$(($(grep -obUa lapic "$ck87" | head -n 1 | cut -d: -f1) + 5))
cp "$ck87" "$T/newer.ck"
printf '\377\377\377\177' | dd of="$T/newer.ck" bs=1 seek=$at conv=notrunc 2>/dev/null
recrc "$T/newer.ck"
refused newer "a newer lapic section" \
    "newer.ck: offset $at: the lapic section has version 2147483647; this pmusim reads it up to version [0-9]* (the checkpoint was taken by a newer pmusim) (inside cpu0)" \
    $x87 --restore "$T/newer.ck" "$x87bin"

# The corruption sweep: one byte inverted at 256 offsets of a checkpoint with every section
# (CPU, devices, code, memory, validator, I-cache model, profile), taken while the sites are
# being patched (one CPU: 552K-574K cycles): every header byte, every CRC byte, and 216
# offsets spread over the sections.  Every one is refused.
a64=$GUESTS/arm64/ftrace.elf
sweep_opts="--quantum 10000 --strict --icache=strict"
run "$T/sweep-save" $sweep_opts --samples "$T/sweep.samples" --save-at 560000:"$T/sweep.ck" "$a64"
len=$(wc -c <"$T/sweep.ck")
accepted=0 refusedn=0 i=0
while [ $i -lt 256 ]; do
    if [ $i -lt 36 ]; then off=$i; elif [ $i -lt 40 ]; then off=$((len - 40 + i)); else off=$((36 + (i - 40) * (len - 40) / 216)); fi
    cp "$T/sweep.ck" "$T/flip.ck"
    flip "$T/flip.ck" $off
    "$PMUSIM" $sweep_opts --samples "$T/flip.samples" --restore "$T/flip.ck" "$a64" >/dev/null 2>"$T/flip.err"
    if [ $? = 2 ] && grep -q "^pmusim: $T/flip.ck: " "$T/flip.err" && ! sanitizer_findings "$T/flip.err"; then
        refusedn=$((refusedn + 1))
    else
        accepted=$((accepted + 1))
        echo "corrupted at offset $off: not refused: $(head -c 300 "$T/flip.err")"
    fi
    i=$((i + 1))
done
check "corruption sweep: $refusedn of 256 refused, $accepted accepted" [ $accepted = 0 ]

# le FILE OFFSET N: the N-byte little-endian number at OFFSET
le() {
    od -An -tu1 -j "$2" -N "$3" "$1" | awk '{ for (i = NF; i >= 1; i--) v = v * 256 + $i } END { printf "%d", v }'
}

# The same with the CRC made right again (a writer's bug, not a disk's): the sections' own
# checks refuse what they can, and nothing crashes or hangs.  Five offsets in every top-level
# section (a CPU's holds its backend's and its PMU's) but guest memory: its name's length, its
# version, its length, a quarter and half way into its payload (the machine section's: the top
# byte of machine time, the sequence counter).
crashed=0 tried=0 off=36 name=
while [ $((off + 4)) -le "$len" ]; do
    nlen=$(le "$T/sweep.ck" $off 4)
    [ "$nlen" -le 128 ] || break                        # not this format: the walk ends
    name=$(dd if="$T/sweep.ck" bs=1 skip=$((off + 4)) count="$nlen" 2>/dev/null)
    hdr=$((4 + nlen + 12)) slen=$(le "$T/sweep.ck" $((off + 8 + nlen)) 8)
    [ $((off + hdr + slen)) -le "$len" ] || break
    for at in $off $((off + 4 + nlen)) $((off + 8 + nlen)) $((off + hdr + slen / 4)) $((off + hdr + slen / 2)); do
        if [ $at -ge $((off + hdr)) ] && { [ "$name" = memory ] || [ $slen = 0 ]; }; then
            continue
        fi
        cp "$T/sweep.ck" "$T/flip.ck"
        flip "$T/flip.ck" $at
        recrc "$T/flip.ck"
        timeout 120 "$PMUSIM" $sweep_opts --samples "$T/flip.samples" --restore "$T/flip.ck" "$a64" \
            >/dev/null 2>"$T/flip.err"
        st=$?
        tried=$((tried + 1))
        if [ $st -ge 124 ] || sanitizer_findings "$T/flip.err"; then
            crashed=$((crashed + 1))
            echo "section $name corrupted at offset $at with a right CRC: status $st: $(head -c 300 "$T/flip.err")"
        fi
    done
    [ "$name" = end ] && break
    off=$((off + hdr + slen))
done
check "the walk reached the end section" [ "$name" = end ]
check "corrupted fields with a right CRC ($tried): no crash, hang or sanitizer finding" [ $crashed = 0 ]
check "no sanitizer findings in any run" test -z "$(grep -l "runtime error\|AddressSanitizer\|LeakSanitizer" "$T"/*.err)"
finish
