#!/bin/sh
# Linux's perf NMI watchdog against a real hard lockup on pmusim's PC: Debian's amd64 6.12
# (CONFIG_HARDLOCKUP_DETECTOR_PERF; kernel/watchdog_perf.c) counts unhalted cycles on a fixed
# counter of pmusim's PMU with the local APIC's LVTPC in NMI mode.  Two CPUs (CPU 1 started by
# INIT/SIPI); `--inject stall:cpu=1:cycle=C` leaves CPU 1 spinning with interrupts off
# (docs/debugging.md, "Fault injection"): no timer interrupt runs there, but its counter's
# overflows still come as NMIs (IF does not mask them), and at the end of the second full
# watchdog period (watchdog_thresh = 10 s: 2 * 10^10 cycles of the 2 GHz clock) the NMI handler
# on CPU 1 finds its hrtimer count unchanged and reports it.  A report from NMI context reaches
# the console only when another printk flushes it (printk defers the console in NMI), so
# `nmi_watchdog=panic` makes it a panic, which flushes the console and ends the run (status 8);
# `root=/dev/vda rootwait` keeps the kernel from its root-mount panic meanwhile.  The trace
# shows CPU 1's counter overflowing, the LVTPC firing and the NMI it delivers.  Twice: the
# same bytes.  With `nmi_watchdog=0` nothing is reported.
. "$(dirname "$0")/lib.sh" "$@"
need_linux_image amd64
C=3000000000
APPEND="console=ttyS0 root=/dev/vda rootwait nmi_watchdog=panic"
for r in a b; do
    RUN_TIMEOUT=900 run "$T/$r" run --kernel "$LINUX_IMAGE" --cpus 2 --append "$APPEND" --inject stall:cpu=1:cycle=$C \
        --max-cycles 80000000000 --stats --trace "$T/$r.trace" --console "$T/$r.con"
done
tr -d '\r' <"$T/a.con" >"$T/a.txt"
check "the NMI watchdog enabled" grep -q "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter" "$T/a.txt"
check "two CPUs up" grep -q "smp: Brought up 1 node, 2 CPUs" "$T/a.txt"
check "the kernel reports the lockup of cpu 1" grep -q "watchdog: Watchdog detected hard LOCKUP on cpu 1" "$T/a.txt"
check "from the NMI handler" grep -q "watchdog_hardlockup_check" "$T/a.txt"
check "the panic ends the run (status $(cat "$T/a.status"))" [ "$(cat "$T/a.status")" = 8 ]
check "cpu 1 stalled at the end" grep -q '^cpu1: .* exit=stalled$' "$T/a.err"
at=$(awk '$2 == "cpu1" && $3 == "inject" { print $1; exit }' "$T/a.trace")
check "the stall began at or after cycle $C ($at)" [ "${at:-0}" -ge $C ]
# the overflow of the watchdog's counter, the LVTPC firing and the NMI, inside the stall
awk -v c=$C '$2 != "cpu1" { next }
             $1 >= c && $3 == "pmu-overflow" && /pmi=1/ { o = 1 }
             o && $3 == "apic-fire" && /what=LVTPC/ { f = 1 }
             f && $3 == "nmi" && /vector=0x2/ { n++ } END { exit !(n >= 2) }' "$T/a.trace"
check "the trace: cpu 1's counter overflow, LVTPC, NMI (twice or more) in the stall" [ $? = 0 ]
for f in con err trace status; do
    check "determinism: $f identical" cmp -s "$T/a.$f" "$T/b.$f"
done

# nmi_watchdog=0: the same stall, no watchdog, no report
RUN_TIMEOUT=900 run "$T/z" run --kernel "$LINUX_IMAGE" --cpus 2 --append "console=ttyS0 root=/dev/vda rootwait nmi_watchdog=0" \
    --inject stall:cpu=1:cycle=$C --max-cycles 50000000000 --stats --console "$T/z.con"
check "nmi_watchdog=0: the watchdog off" sh -c "! grep -q 'NMI watchdog: Enabled' '$T/z.con'"
check "nmi_watchdog=0: no report" sh -c "! grep -q 'LOCKUP' '$T/z.con'"
check "nmi_watchdog=0: the run ends with cpu 1 stalled ($(tail -n 1 "$T/z.err"))" grep -q '^cpu1: .* exit=stalled$' "$T/z.err"
sed -n 's/^\[ *\([0-9.]*\)\] watchdog: Watchdog detected hard LOCKUP.*/reported at \1 s of the guest clock/p' "$T/a.txt"
finish
