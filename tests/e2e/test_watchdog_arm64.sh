#!/bin/sh
# The hard-lockup watchdog on arm64 (guest/watchdog.c with arch/arm64/watchdog_arch.h), as Linux
# runs it with irqchip.gicv3_pseudo_nmi=1 (issue 13, item 4): the PMUv3 cycle counter overflowing
# into PPI 23 at NMI priority 0x20, the physical generic timers on PPI 30 at 0xa0 as hrtimers,
# CPU 1 spinning with interrupts masked by ICC_PMR_EL1 = 0x60.  The lockup is reported on that
# CPU only, at the same cycle and pc every run; `nolockup` reports nothing; the trace shows the
# NMI taken from lockup_spin and no diagnostics; a checkpoint continues bit-identically.
. "$(dirname "$0")/lib.sh" "$@"

ELF=$GUESTS/arm64/watchdog.elf

run "$T/wd" --cpus 2 --stats --trace "$T/wd.trace" "$ELF"
check "watchdog: exit status 0 (PSCI SYSTEM_OFF)" [ "$(cat "$T/wd.status")" = 0 ]
check "watchdog: console as recorded" cmp -s "$EXPECTED/arm64/watchdog.out" "$T/wd.out"
check "watchdog: one lockup report" [ "$(grep -c 'Watchdog detected hard LOCKUP' "$T/wd.out")" = 1 ]
check "watchdog: reported on cpu 1" grep -q '^NMI watchdog: Watchdog detected hard LOCKUP on cpu 1$' "$T/wd.out"
check "watchdog: the pc is in lockup_spin" grep -q '^pc : lockup_spin+0x' "$T/wd.out"
check "watchdog: pseudo-NMIs announced" grep -q '^GICv3: Pseudo-NMIs enabled' "$T/wd.out"
n0=$(sed -n 's/^watchdog: cpu 0: .*nmis=\([0-9]*\) lockups=\([0-9]*\)$/\1 \2/p' "$T/wd.out")
check "watchdog: cpu 0 ran >= 3 thresholds without a report ($n0)" sh -c "set -- $n0; [ \$1 -ge 3 ] && [ \$2 = 0 ]"
check "watchdog: cpu 0's hrtimer ran" grep -q '^watchdog: cpu 0: hrtimer_interrupts=[1-9]' "$T/wd.out"
check "watchdog: cpu 1's hrtimer never ran (masked)" grep -q '^watchdog: cpu 1: hrtimer_interrupts=0 ' "$T/wd.out"

# The trace: cpu 1 took its NMI from lockup_spin, at the pc the guest printed; it acknowledged
# INTID 23 (0x17) at the running priority 0x20; lockup_spin masked by PMR 0x60; the timer's PPI 30
# (0x1e) was taken on cpu 0; no diagnostic at all.
sym=$(sed -n 's/^pc : \([^/]*\)\/.*/\1/p' "$T/wd.out")
check "trace: cpu 1 took an interrupt from $sym" grep -q "cpu1 interrupt .* sym=$sym " "$T/wd.trace"
check "trace: cpu 1 acknowledged the PMU's PPI 23" grep -q "cpu1 gic-read .* reg=ICC_IAR1_EL1 value=0x17" "$T/wd.trace"
check "trace: at NMI priority" grep -q "cpu1 gic-read .* reg=ICC_RPR_EL1 value=0x20" "$T/wd.trace"
check "trace: lockup_spin masked by PMR 0x60" grep -q "cpu1 gic-write .*sym=lockup_spin.* reg=ICC_PMR_EL1 old=0xe0 new=0x60" "$T/wd.trace"
check "trace: cpu 0 took the timer's PPI 30" grep -q "cpu0 gic-read .* reg=ICC_IAR1_EL1 value=0x1e" "$T/wd.trace"
check "trace: the cycle counter overflowed" grep -q "pmu-overflow" "$T/wd.trace"
check "trace: no diagnostics" sh -c "! grep -q ' diag ' '$T/wd.trace'"

# Determinism: two runs side by side give the same bytes as the first.
run "$T/a" --cpus 2 --stats --trace "$T/a.trace" "$ELF" &
run "$T/b" --cpus 2 --stats --trace "$T/b.trace" "$ELF" &
wait
for r in a b; do
    for f in out err trace; do
        check "determinism: run $r $f identical" cmp -s "$T/wd.$f" "$T/$r.$f"
    done
done

run "$T/nol" --cpus 2 --bootargs nolockup "$ELF"
check "nolockup: exit status 0" [ "$(cat "$T/nol.status")" = 0 ]
check "nolockup: no report" sh -c "! grep -q LOCKUP '$T/nol.out'"
check "nolockup: no CPU spun with interrupts off" sh -c "! grep -q 'disabling interrupts' '$T/nol.out'"
check "nolockup: summary lockups=0 for both CPUs" [ "$(grep -c 'lockups=0$' "$T/nol.out")" = 2 ]
check "nolockup: both hrtimers ran" [ "$(grep -c 'hrtimer_interrupts=[1-9]' "$T/nol.out")" = 2 ]

run "$T/four" --cpus 4 "$ELF"
check "4 cpus: lockup reported on cpu 3 only" sh -c \
    "[ \$(grep -c 'detected hard LOCKUP' '$T/four.out') = 1 ] && grep -q 'LOCKUP on cpu 3\$' '$T/four.out'"

# A checkpoint in the middle (after the lockup CPU spun up, before the report) continues exactly.
run "$T/save" --cpus 2 --stats --trace "$T/save.trace" --save-at 8000000:"$T/wd.ck" "$ELF"
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
