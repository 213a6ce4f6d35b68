#!/bin/sh
# --save-at CYCLE:FILE then --restore FILE continues bit-identically: the restored run's console
# is the tail of the uninterrupted run's, its trace is the tail of the trace, and the final
# stats are equal; taking the checkpoint does not disturb the run.  Broken checkpoints are
# refused with the file and offset named.
. "$(dirname "$0")/lib.sh" "$@"

# case: guest, CPUs, cycle (the smp guests end near 105000 cycles; loop runs 10M+)
for a in $ARCHES; do
    for c in "smp 2 1" "smp 2 100000" "loop 1 3000000"; do
        set -- $c
        g=$1 n=$2 at=$3
        elf=$GUESTS/$a/$g.elf
        p=$T/$a-$g-$at
        run "$p-full" --cpus $n --stats --trace "$p-full.trace" "$elf"
        run "$p-save" --cpus $n --stats --trace "$p-save.trace" --save-at "$at:$p.ck" "$elf"
        run "$p-rest" --cpus $n --stats --trace "$p-rest.trace" --restore "$p.ck" "$elf"
        w="$a/$g@$at"
        check "$w: checkpoint written" [ -s "$p.ck" ]
        check "$w: saving run unchanged (console)" cmp -s "$p-full.out" "$p-save.out"
        check "$w: saving run unchanged (trace)" cmp -s "$p-full.trace" "$p-save.trace"
        check "$w: restored stats equal" cmp -s "$p-full.err" "$p-rest.err"
        check "$w: restored status equal" cmp -s "$p-full.status" "$p-rest.status"
        k=$(wc -c <"$p-rest.out")
        tail -c "$k" "$p-full.out" >"$p.tailout"
        check "$w: restored console is the tail" cmp -s "$p.tailout" "$p-rest.out"
        k=$(wc -l <"$p-rest.trace")
        tail -n "$k" "$p-full.trace" >"$p.tailtrace"
        check "$w: restored trace is the tail ($k lines)" cmp -s "$p.tailtrace" "$p-rest.trace"
    done
done

# A run that ends before the checkpoint point says the file was not written.
run "$T/late" --save-at 10000:"$T/late.ck" "$GUESTS/ppc32/smp.elf"
check "checkpoint never taken: no file" [ ! -e "$T/late.ck" ]
check "checkpoint never taken: says so" grep -q "late.ck was not written" "$T/late.err"

# Broken checkpoints: truncated, foreign (another guest), an invalid field, not a checkpoint at all.
ck=$T/x86_64-smp-100000.ck
head -c 100 "$ck" >"$T/trunc.ck"
run "$T/trunc" --cpus 2 --restore "$T/trunc.ck" "$GUESTS/x86_64/smp.elf"
check "truncated checkpoint: status 2" [ "$(cat "$T/trunc.status")" = 2 ]
check "truncated checkpoint: names file and offset" grep -q "trunc.ck: offset [0-9]*: truncated" "$T/trunc.err"
run "$T/foreign" --cpus 2 --restore "$ck" "$GUESTS/x86_64/hello.elf"
check "foreign checkpoint: status 2" [ "$(cat "$T/foreign.status")" = 2 ]
check "foreign checkpoint: says so" grep -q "different machine" "$T/foreign.err"
run "$T/foreign2" --cpus 4 --restore "$ck" "$GUESTS/x86_64/smp.elf"
check "checkpoint with another --cpus: refused" [ "$(cat "$T/foreign2.status")" = 2 ]
# The first CPU section's payload starts at 76 (24-byte header, 40-byte machine section, 12-byte
# section header) with the CPU state; 9 is no CpuState.
cp "$ck" "$T/badstate.ck"
printf '\011' | dd of="$T/badstate.ck" bs=1 seek=76 conv=notrunc 2>/dev/null
run "$T/badstate" --cpus 2 --restore "$T/badstate.ck" "$GUESTS/x86_64/smp.elf"
check "invalid CPU state: status 2" [ "$(cat "$T/badstate.status")" = 2 ]
check "invalid CPU state: names file, offset and field" \
    grep -q "badstate.ck: offset 76: the cpu0 section is malformed (state)" "$T/badstate.err"
run "$T/notck" --restore "$GUESTS/x86_64/hello.elf" "$GUESTS/x86_64/hello.elf"
check "not a checkpoint: status 2" [ "$(cat "$T/notck.status")" = 2 ]
check "not a checkpoint: bad magic at offset 0" grep -q "offset 0: not a pmusim checkpoint" "$T/notck.err"
finish
