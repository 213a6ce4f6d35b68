#!/bin/sh
# The NMI hard-lockup watchdog on x86_64 (guest/watchdog.c): a cycles counter overflowing into
# NMIs through LVTPC, LAPIC timers as hrtimers, one CPU spinning with interrupts off.  The lockup
# is reported on that CPU only, at the same cycle and RIP every run; the other CPUs report
# nothing over at least three thresholds; `nolockup` reports nothing; the trace shows the PMU
# driver's register accesses and no diagnostics; a checkpoint continues bit-identically.
. "$(dirname "$0")/lib.sh" "$@"

ELF=$GUESTS/x86_64/watchdog.elf

# The scenario as the issue names it, against the recorded output.
run "$T/wd" --cpus 2 --stats --trace "$T/wd.trace" "$ELF"
check "watchdog: exit status 1 (guest exit 0)" [ "$(cat "$T/wd.status")" = 1 ]
check "watchdog: console as recorded" cmp -s "$EXPECTED/x86_64/watchdog.out" "$T/wd.out"
check "watchdog: one lockup report" [ "$(grep -c 'Watchdog detected hard LOCKUP' "$T/wd.out")" = 1 ]
check "watchdog: reported on cpu 1" grep -q '^NMI watchdog: Watchdog detected hard LOCKUP on cpu 1$' "$T/wd.out"
check "watchdog: the RIP is in lockup_spin" grep -q '^RIP: 00[01]8:lockup_spin+0x' "$T/wd.out"
# cpu 0 saw at least three NMIs (thresholds) and no lockup
n0=$(sed -n 's/^watchdog: cpu 0: .*nmis=\([0-9]*\) lockups=\([0-9]*\)$/\1 \2/p' "$T/wd.out")
check "watchdog: cpu 0 ran >= 3 thresholds without a report ($n0)" sh -c "set -- $n0; [ \$1 -ge 3 ] && [ \$2 = 0 ]"

# The trace: the NMI that found the lockup came from lockup_spin on cpu 1, at the RIP the guest
# printed; LVTPC was written (unmasked) by the handler, overflow status acknowledged; every PMI
# was delivered (no lost PMI) and no diagnostic at all was raised.
rip=$(sed -n 's/^RIP: 00[01]8:\([^/]*\)\/.*/\1/p' "$T/wd.out")
check "trace: cpu 1 took an NMI from $rip" grep -q "cpu1 nmi .* sym=$rip " "$T/wd.trace"
check "trace: LVTPC unmasked by the NMI handler" grep -q "apic-write .* reg=LVTPC old=0x10400 new=0x400" "$T/wd.trace"
check "trace: overflow acknowledged through OVF_CTRL" grep -q "wrmsr .* name=IA32_PERF_GLOBAL_OVF_CTRL" "$T/wd.trace"
check "trace: PMIs fired through LVTPC" grep -q "apic-fire .* what=LVTPC" "$T/wd.trace"
check "trace: LAPIC timer interrupts" grep -q "cpu0 interrupt vector=0xec" "$T/wd.trace"
check "trace: no diagnostics" sh -c "! grep -q ' diag ' '$T/wd.trace'"

# Determinism: two runs side by side and one alone give the same bytes.
run "$T/a" --cpus 2 --stats --trace "$T/a.trace" "$ELF" &
run "$T/b" --cpus 2 --stats --trace "$T/b.trace" "$ELF" &
wait
for r in a b; do
    for f in out err trace; do
        check "determinism: run $r $f identical" cmp -s "$T/wd.$f" "$T/$r.$f"
    done
done

# No lockup: nothing reported, every CPU kept its hrtimer going.
run "$T/nol" --cpus 2 --bootargs nolockup "$ELF"
check "nolockup: exit status 1" [ "$(cat "$T/nol.status")" = 1 ]
check "nolockup: no report" sh -c "! grep -q LOCKUP '$T/nol.out'"
check "nolockup: no CPU spun with interrupts off" sh -c "! grep -q 'disabling interrupts' '$T/nol.out'"
check "nolockup: summary lockups=0 for both CPUs" [ "$(grep -c 'lockups=0$' "$T/nol.out")" = 2 ]

# Four CPUs: the last one locks up, the three others run on.
run "$T/four" --cpus 4 "$ELF"
check "4 cpus: lockup reported on cpu 3 only" sh -c \
    "[ \$(grep -c 'detected hard LOCKUP' '$T/four.out') = 1 ] && grep -q 'LOCKUP on cpu 3\$' '$T/four.out'"

# A checkpoint in the middle (after the lockup CPU spun up, before the report) continues exactly.
run "$T/save" --cpus 2 --stats --trace "$T/save.trace" --save-at 10000000:"$T/wd.ck" "$ELF"
run "$T/rest" --cpus 2 --stats --trace "$T/rest.trace" --restore "$T/wd.ck" "$ELF"
check "checkpoint: saving run unchanged" cmp -s "$T/wd.out" "$T/save.out"
check "checkpoint: restored stats equal" cmp -s "$T/wd.err" "$T/rest.err"
k=$(wc -c <"$T/rest.out")
tail -c "$k" "$T/wd.out" >"$T/tail.out"
check "checkpoint: restored console is the tail" cmp -s "$T/tail.out" "$T/rest.out"
check "checkpoint: the restored run reports the lockup" grep -q 'LOCKUP on cpu 1' "$T/rest.out"
k=$(wc -l <"$T/rest.trace")
tail -n "$k" "$T/wd.trace" >"$T/tail.trace"
check "checkpoint: restored trace is the tail" cmp -s "$T/tail.trace" "$T/rest.trace"
finish
