#!/bin/sh
# Fault injection (--inject stall:cpu=N:cycle=C[:for=CYCLES], docs/debugging.md "Fault
# injection") against the mini kernels' hard-lockup detectors (guest/watchdog.c): CPU 1 keeps
# busy (lockup_by=inject) until pmusim stalls it.  The buddy detector (each CPU checks the next
# one's timer, Linux's kernel/watchdog_buddy.c) finds it on both arches; the perf NMI detector on
# x86_64 (the NMI interrupts `cli; jmp .`), not on arm64 (the pseudo-NMI is masked with the rest,
# as PSTATE.DAIF = 0b1111 masks it).  The stall starts on the exact instruction boundary
# --max-cycles stops at; runs are byte-identical; checkpoints before and inside the stall
# continue exactly, and so does time travel; for= resumes the CPU, which then takes its pending
# timer interrupt.
. "$(dirname "$0")/lib.sh" "$@"

ARM=$GUESTS/arm64/watchdog.elf
X86=$GUESTS/x86_64/watchdog.elf
C=5000000                               # the stall's cycle: after both CPUs started their detectors
BUDDY="lockup_by=inject watchdog_detector=buddy"
STALL=stall:cpu=1:cycle=$C
# A guest whose summary fails waits for ever with its timer running (the stalled CPU does not
# stop): a limit far beyond a good run's end (50 M cycles arm64, 100 M x86_64) ends it.
L="--max-cycles 400000000"

# --- bad specs: status 2, one message naming the option, the value and the offset
bad_spec() {
    run "$T/bad" --cpus 2 --inject "$1" "$ARM"
    check "bad spec $1: status 2" [ "$(cat "$T/bad.status")" = 2 ]
    check "bad spec $1: message" grep -qF "pmusim: --inject $1: $2" "$T/bad.err"
}
bad_spec stall:cpu=1:cyc=5 'unknown key "cyc" at offset 12'
bad_spec stal:cpu=1:cycle=5 'unknown kind "stal" (kinds: stall) at offset 0'
bad_spec stall:cpu=1 'missing key "cycle" at offset 11'
bad_spec stall:cpu=1:cycle=5x 'bad value for cycle: expected a cycle from 0 to 2^62 (K, M, G: x 10^3, 10^6, 10^9) at offset 18'
bad_spec stall:cpu=1:cycle=1:cpu=0 'key "cpu" given twice at offset 20'
bad_spec stall:cpu=1::cycle=1 'empty field (expected KEY=VALUE) at offset 12'
bad_spec stall:cpu=1:cycle=1:for=0 'bad value for for: expected a number of cycles from 1 to 2^62 (K, M, G suffixes) at offset 24'
bad_spec stall:cpu=2:cycle=1 'cpu 2, but the machine has 2 CPUs (cpu=0 to 1)'
run "$T/bad" --inject stall:cpu=1:cycle=1 "$ARM"
check "cpu beyond the tree's CPUs (no --cpus): status 2" [ "$(cat "$T/bad.status")" = 2 ]
check "cpu beyond the tree's CPUs: message" grep -q "pmusim: .*--inject stall:cpu=1:cycle=1: cpu 1, but the machine has 1 CPU" "$T/bad.err"
run "$T/bad" --cpus 2 --inject stall:cpu=1:cycle=1M:for=2M --inject stall:cpu=1:cycle=2M "$ARM"
check "overlapping stalls: status 2" [ "$(cat "$T/bad.status")" = 2 ]
check "overlapping stalls: message" grep -qF 'overlaps --inject stall:cpu=1:cycle=1M:for=2M' "$T/bad.err"

# --- arm64, the buddy detector: CPU 0 finds CPU 1 stalled
run "$T/ab" --cpus 2 $L --stats --trace "$T/ab.trace" --bootargs "$BUDDY" --inject $STALL "$ARM"
check "arm64 buddy: exit status 0" [ "$(cat "$T/ab.status")" = 0 ]
check "arm64 buddy: lockup of cpu 1 reported" grep -q '^watchdog: Watchdog detected hard LOCKUP on cpu 1$' "$T/ab.out"
check "arm64 buddy: by cpu 0" grep -q '^watchdog: cpu 0: lockup of cpu 1 found at cntpct=' "$T/ab.out"
check "arm64 buddy: summary passed" grep -q '^watchdog: done$' "$T/ab.out"
check "arm64 buddy: cpu 1's timer stopped with the stall" grep -q '^watchdog: cpu 1: hrtimer_interrupts=1 nmis=0 lockups=1$' "$T/ab.out"
check "arm64 buddy: --stats says stalled" grep -q '^cpu1: .* exit=stalled$' "$T/ab.err"
check "arm64 buddy: one inject event" [ "$(grep -c ' inject ' "$T/ab.trace")" = 1 ]
check "arm64 buddy: it is cpu 1's stall" grep -q "^[0-9]* cpu1 inject what=stall pc=0x[0-9a-f]* sym=" "$T/ab.trace"
at=$(awk '$3 == "inject" { print $1 }' "$T/ab.trace")
check "arm64 buddy: the stall starts at or after cycle $C ($at)" [ "${at:-0}" -ge $C ]
check "arm64 buddy: cpu 1 traces nothing after it but its PMU" sh -c \
    "awk '\$2 == \"cpu1\" && \$1 > $at && \$3 != \"pmu-overflow\"' '$T/ab.trace' | grep -q . && exit 1 || exit 0"
check "arm64 buddy: no diagnostics" sh -c "! grep -q ' diag ' '$T/ab.trace'"

# The exact boundary: --max-cycles C stops CPU 1 where the stall begins (the same count and
# clock; nothing retires in the stall).
run "$T/lim" --cpus 2 --stats --bootargs "$BUDDY" --max-cycles $C "$ARM"
lim=$(sed -n 's/^cpu1: insns=\([0-9]*\) cycles=\([0-9]*\) .*/\1 \2/p' "$T/lim.err")
got=$(sed -n 's/^cpu1: insns=\([0-9]*\) .*/\1/p' "$T/ab.err")
check "exact: cpu 1 retired as many as up to --max-cycles $C ($lim / $got)" [ "${lim% *}" = "$got" ]
check "exact: the stall's cycle is that boundary" [ "${lim#* }" = "$at" ]

# Determinism: two more runs side by side, byte for byte.
run "$T/a" --cpus 2 $L --stats --trace "$T/a.trace" --bootargs "$BUDDY" --inject $STALL "$ARM" &
run "$T/b" --cpus 2 $L --stats --trace "$T/b.trace" --bootargs "$BUDDY" --inject $STALL "$ARM" &
wait
for r in a b; do
    for f in out err trace status; do
        check "determinism: run $r $f identical" cmp -s "$T/ab.$f" "$T/$r.$f"
    done
done

# Checkpoints before the stall and inside it continue exactly (the stall's state is saved).
for at_ck in 2000000 30000000; do
    run "$T/s$at_ck" --cpus 2 $L --stats --trace "$T/s$at_ck.trace" --bootargs "$BUDDY" --inject $STALL \
        --save-at $at_ck:"$T/ck$at_ck" "$ARM"
    check "checkpoint at $at_ck: the saving run unchanged" cmp -s "$T/ab.out" "$T/s$at_ck.out"
    run "$T/r$at_ck" --cpus 2 $L --stats --trace "$T/r$at_ck.trace" --bootargs "$BUDDY" --inject $STALL \
        --restore "$T/ck$at_ck" "$ARM"
    same_end "checkpoint at $at_ck" "$T/ab" "$T/r$at_ck"
done
check "checkpoint inside the stall: no second inject event" sh -c "! grep -q ' inject ' '$T/r30000000.trace'"

# for=: a stall shorter than the detector's period goes unreported; the CPU resumes exactly
# for= cycles later and takes the timer interrupt that was pending.
run "$T/short" --cpus 2 $L --stats --trace "$T/short.trace" --bootargs "nolockup watchdog_detector=buddy" \
    --inject $STALL:for=4M "$ARM"
check "for=4M: exit status 0, no report" sh -c "[ \$(cat '$T/short.status') = 0 ] && ! grep -q LOCKUP '$T/short.out'"
check "for=4M: summary passed" grep -q '^watchdog: done$' "$T/short.out"
s0=$(awk '$3 == "inject" && $4 == "what=stall" { print $1 }' "$T/short.trace")
s1=$(awk '$3 == "inject" && $4 == "what=resume" { print $1 }' "$T/short.trace")
check "for=4M: the stall traced with its length" grep -q ' cpu1 inject what=stall .* len=4000000$' "$T/short.trace"
check "for=4M: resumed 4000000 cycles later ($s0 -> $s1)" [ "$((${s1:-0} - ${s0:-0}))" = 4000000 ]
spc=$(sed -n 's/.* cpu1 inject what=resume pc=\(0x[0-9a-f]*\) .*/\1/p' "$T/short.trace")
next=$(awk -v at="${s1:-0}" '$2 == "cpu1" && $1 >= at && $3 != "inject" { print $3, $6; exit }' "$T/short.trace")
check "for=4M: then the pending timer interrupt first, from the stalled pc ($next)" [ "$next" = "interrupt from=$spc" ]
check "for=4M: cpu 1 running at the end" grep -q '^cpu1: .* exit=running$' "$T/short.err"
run "$T/long" --cpus 2 $L --bootargs "$BUDDY" --inject $STALL:for=40M "$ARM"
check "for=40M: the lockup reported" grep -q 'LOCKUP on cpu 1$' "$T/long.out"
check "for=40M: cpu 1's timer ran again after it" sh -c \
    "grep -q '^watchdog: cpu 1: hrtimer_interrupts=\([2-9]\|[1-9][0-9]\) nmis=0 lockups=1$' '$T/long.out'"

# --- arm64, the perf NMI detector: the pseudo-NMI is masked too, nothing is reported
run "$T/ap" --cpus 2 --max-cycles 100000000 --bootargs lockup_by=inject --inject $STALL "$ARM"
check "arm64 perf: no report (the stalled CPU takes no pseudo-NMI)" sh -c "! grep -q LOCKUP '$T/ap.out'"
check "arm64 perf: cpu 1 took no NMI" grep -q '^watchdog: cpu 1: hrtimer_interrupts=1 nmis=0 lockups=0$' "$T/ap.out"

# --- x86_64, the perf NMI detector: the NMI interrupts the stall and reports it, at its RIP
run "$T/xp" --cpus 2 $L --stats --trace "$T/xp.trace" --bootargs lockup_by=inject --inject $STALL "$X86"
check "x86_64 perf: lockup of cpu 1 reported" grep -q '^NMI watchdog: Watchdog detected hard LOCKUP on cpu 1$' "$T/xp.out"
check "x86_64 perf: summary passed" grep -q '^watchdog: done$' "$T/xp.out"
sym=$(sed -n 's/.* cpu1 inject what=stall pc=0x[0-9a-f]* sym=\([^ ]*\).*/\1/p' "$T/xp.trace")
check "x86_64 perf: the NMI's RIP is the stalled instruction ($sym)" grep -q "^RIP: 0008:$sym/" "$T/xp.out"
pc=$(sed -n 's/.* cpu1 inject what=stall pc=\(0x[0-9a-f]*\) .*/\1/p' "$T/xp.trace")
xat=$(awk '$3 == "inject" { print $1 }' "$T/xp.trace")
rets=$(awk -v at="$xat" '$2 == "cpu1" && $1 > at && $3 == "exception-return" { print $6 }' "$T/xp.trace" | sort | uniq -c)
check "x86_64 perf: the NMIs' returns all go back into the stall ($rets)" sh -c \
    "[ \$(printf '%s\n' '$rets' | wc -l) = 1 ] && printf '%s\n' '$rets' | grep -q ' to=$pc\$'"
check "x86_64 perf: cpu 1 took NMIs in the stall" [ "$(awk -v at="$xat" '$2 == "cpu1" && $1 > at && $3 == "nmi"' "$T/xp.trace" | wc -l)" -ge 2 ]
run "$T/xb" --cpus 2 $L --bootargs "$BUDDY" --inject $STALL "$X86"
check "x86_64 buddy: lockup of cpu 1 reported by cpu 0" grep -q '^watchdog: cpu 0: lockup of cpu 1 found at tsc=' "$T/xb.out"
check "x86_64 buddy: summary passed" grep -q '^watchdog: done$' "$T/xb.out"
run "$T/xp2" --cpus 2 $L --stats --trace "$T/xp2.trace" --bootargs lockup_by=inject --inject $STALL "$X86"
for f in out err trace status; do
    check "x86_64 determinism: $f identical" cmp -s "$T/xp.$f" "$T/xp2.$f"
done

# Time travel across the stall (arm64) and the NMIs taken in it (x86_64): stepping back and
# forth gives the same machine states (docs/debugging.md, --time-travel-check).
run "$T/tta" --cpus 2 $L --bootargs "$BUDDY" --inject $STALL --time-travel-check 200000 "$ARM"
check "time travel arm64: no difference" grep -q '^time-travel check: [1-9][0-9]* points, .* 0 differences;' "$T/tta.err"
check "time travel arm64: the same console" cmp -s "$T/ab.out" "$T/tta.out"
run "$T/ttx" --cpus 2 $L --bootargs lockup_by=inject --inject $STALL --time-travel-check 200000 "$X86"
check "time travel x86_64: no difference" grep -q '^time-travel check: [1-9][0-9]* points, .* 0 differences;' "$T/ttx.err"
check "time travel x86_64: the same console" cmp -s "$T/xp.out" "$T/ttx.out"
finish
