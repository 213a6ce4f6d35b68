#!/bin/sh
# test_linux_x86_smp.sh — Debian's amd64 kernel (the kernel cache: need_linux_image amd64) on two
# CPUs: its secondary CPU waits for SIPI and Linux wakes it as on a PC, INIT then two STARTUP IPIs
# through the local APIC (arch/x86/kernel/smpboot.c), its real-mode trampoline
# (arch/x86/realmode/rm/trampoline_64.S) taking it into long mode (docs/machines.md, "Starting
# secondary CPUs").  Properties only: the kernel's SMP messages, the AP's instructions; twice,
# the same bytes; then four CPUs.  (Each boot reaches the root-mount panic: 1.77e9 instructions
# in all at two CPUs.)
. "$(dirname "$0")/lib.sh" "$@"
need_linux_image amd64
INSNS=${SMP_INSNS:-3000000000}

boot() {
    RUN_TIMEOUT=900 run "$T/$1" run --kernel "$LINUX_IMAGE" --cpus ${2:-2} --append "console=ttyS0" \
        --max-insns $INSNS --stats --console "$T/$1.con"
}
boot a
tr -d '\r' <"$T/a.con" >"$T/a.txt"         # the 8250 console ends its lines with CR LF
check "the root-mount panic ends the run (status $(cat "$T/a.status"): $(tail -n 3 "$T/a.err" | tr '\n' ' '))" \
    [ "$(cat "$T/a.status")" = 8 ]
check "the panic's last line" grep -q "end Kernel panic - not syncing: VFS: Unable to mount root fs" "$T/a.txt"
check "smp: Bringing up secondary CPUs" grep -q "smp: Bringing up secondary CPUs \.\.\." "$T/a.txt"
check "x86: Booting SMP configuration" grep -q "x86: Booting SMP configuration:" "$T/a.txt"
check "smp: Brought up 1 node, 2 CPUs" grep -q "smp: Brought up 1 node, 2 CPUs" "$T/a.txt"
check "no CPU failed to boot" sh -c "! grep -q 'failed to boot\|failed to report alive\|to wakeup CPU' '$T/a.txt'"
check "cpu1 ran: its instructions in --stats" grep -Eq "^cpu1: insns=[1-9][0-9]{6,} " "$T/a.err"

boot b
check "deterministic: the same console" cmp -s "$T/a.con" "$T/b.con"
check "deterministic: the same end (PC, counts)" cmp -s "$T/a.err" "$T/b.err"

boot c 4
tr -d '\r' <"$T/c.con" >"$T/c.txt"
check "4 CPUs: CPUs #1 #2 #3 booted" grep -q "node  #0, CPUs: *#1 #2 #3\$" "$T/c.txt"
check "4 CPUs: smp: Brought up 1 node, 4 CPUs" grep -q "smp: Brought up 1 node, 4 CPUs" "$T/c.txt"
check "4 CPUs: cpu3 ran" grep -Eq "^cpu3: insns=[1-9][0-9]{6,} " "$T/c.err"
finish
