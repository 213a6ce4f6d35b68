#!/bin/sh
# scripts/demo.sh BUILD [ARCH|all] — the default scenarios on the built-in boards:
#   x86_64  the NMI hard-lockup watchdog (issue 3): 2 CPUs, CPU 1 spins with interrupts off and
#           the perf cycles counter's NMI reports it, the same cycle and RIP on every run; the
#           kernel at Linux's address, 0xffffffff80100000 (watchdog-high.elf, docs/guest-abi.md)
#   ppc32   oprofile-style sampling on the MPC7450 (issue 4): 10000 samples of PMC1 through the
#           0xF00 exception, then `pmusim report --truth` (samples beside the exact shares)
#           and `pmusim report --folded` (the samples' call stacks)
#   arm64   the same hard-lockup watchdog as Linux runs it with irqchip.gicv3_pseudo_nmi=1
#           (issue 13): 2 CPUs, CPU 1 masks interrupts with ICC_PMR_EL1 and spins, the PMUv3's
#           overflow at NMI priority through the GICv3 reports it, the same cycle and pc every run
# each with per-CPU instruction and cycle counts; then, for arm64 (issue 15), Debian's own
# unmodified arm64 kernel (fetched into BUILD/linux-cache: scripts/fetch-kernel.sh) with the
# project's initramfs (guest/linux/): tracefs, ftrace, perf counting and sampling, /proc/kallsyms,
# dmesg; and the kernel's hard-lockup detector against pmusim's fault injection (--inject
# stall:cpu=1:...), its highlights shown; for x86_64 (issue 16), Debian's amd64 kernel on the PC
# board on 2 CPUs, its perf NMI watchdog catching CPU 1 stalled (--inject stall:cpu=1:...).
set -u
BUILD=$1
ARCHES=${2:-all}
[ "$ARCHES" = all ] && ARCHES="x86_64 arm64 ppc32"
status=0
for a in $ARCHES; do
    case $a in
    x86_64) args="--cpus 2 --stats" guest=watchdog-high ;;
    ppc32) samples=$(mktemp "${TMPDIR:-/tmp}/pmusim-demo.XXXXXX")
           args="--stats --samples $samples" guest=oprofile ;;
    arm64) args="--cpus 2 --stats" guest=watchdog ;;
    *) args="--cpus 4 --stats" guest=smp ;;
    esac
    echo "=== $a: build/pmusim run $args build/guest/$a/$guest.elf"
    "$BUILD/pmusim" run $args "$BUILD/guest/$a/$guest.elf"
    rc=$?
    echo "(exit status $rc)"
    if [ "$guest" = oprofile ]; then
        echo "=== $a: build/pmusim report --truth build/guest/$a/$guest.elf SAMPLES"
        "$BUILD/pmusim" report --truth "$BUILD/guest/$a/$guest.elf" "$samples" | head -n 12 || status=1
        echo "=== $a: build/pmusim report --folded build/guest/$a/$guest.elf SAMPLES (the call stacks)"
        "$BUILD/pmusim" report --folded "$BUILD/guest/$a/$guest.elf" "$samples" | head -n 4 || status=1
        rm -f "$samples"
    fi
    echo
    case $a in
    arm64) [ $rc = 0 ] || status=1 ;;
    *) [ $rc = 1 ] || status=1 ;;        # isa-debug-exit code 0 -> status 1, as under QEMU
    esac
done

# Debian's arm64 kernel with the project's userspace (issue 15): the highlights of its console.
linux_demo() {
    img=$(sh scripts/fetch-kernel.sh arm64 "$BUILD/linux-cache" | awk '{ print $NF }') || return 1
    cpio=$BUILD/guest/arm64/initramfs.cpio
    out=$(mktemp "${TMPDIR:-/tmp}/pmusim-demo.XXXXXX")
    echo "=== arm64 Linux: build/pmusim run --kernel $img --initrd $cpio --cpus 2 --stats \\"
    echo "      --append \"console=ttyAMA0,1500000 -- tracefs ftrace perf kallsyms dmesg\""
    "$BUILD/pmusim" run --kernel "$img" --initrd "$cpio" --cpus 2 --stats --quiet \
        --append "console=ttyAMA0,1500000 -- tracefs ftrace perf kallsyms dmesg" >"$out"
    rc=$?
    tr -d '\r' <"$out" | grep -E 'Linux version|hw perfevents|GICv3: CPU1|arch_timer: cp15|ttyAMA0 at MMIO|smp: Brought up|pmusim-init: (tracefs: format: .*prev_pid|ftrace: .*(schedule|vfs_read)|perf: |kallsyms: .* T schedule$|done)' |
        awk '!seen[$0]++' | head -n 40
    echo "(exit status $rc)"
    echo "=== arm64 Linux: the hard-lockup detector, CPU 1 stalled from cycle 2500000000 (--inject),"
    echo "    the run ended at cycle 5300000000 (--max-cycles), after the kernel's report"
    "$BUILD/pmusim" run --kernel "$img" --initrd "$cpio" --cpus 2 --stats --quiet --max-cycles 5300000000 \
        --inject stall:cpu=1:cycle=2500000000 --append "console=ttyAMA0,1500000 -- lockup thresh=1 timeout=30" >"$out"
    rc2=$?
    tr -d '\r' <"$out" | grep -E -A3 'Watchdog detected hard LOCKUP|pmusim-init: lockup: .*thresh' | head -n 12
    echo "(exit status $rc2: --max-cycles)"
    rm -f "$out"
    [ $rc = 0 ] && [ $rc2 = 3 ]
}
# x86-64: Debian's amd64 kernel on pmusim's PC, 2 CPUs, its perf NMI watchdog (an LVTPC NMI from
# a fixed counter of pmusim's PMU) catching CPU 1 stalled with interrupts off; the report from NMI
# context is made a panic (nmi_watchdog=panic), which flushes the console
# (tests/e2e/test_linux_x86_lockup.sh)
linux_x86_demo() {
    img=$(sh scripts/fetch-kernel.sh amd64 "$BUILD/linux-cache" | awk '{ print $NF }') || return 1
    out=$(mktemp "${TMPDIR:-/tmp}/pmusim-demo.XXXXXX")
    app="console=ttyS0 root=/dev/vda rootwait nmi_watchdog=panic"
    echo "=== x86-64 Linux: build/pmusim run --kernel $img --cpus 2 --append \"$app\" \\"
    echo "      --inject stall:cpu=1:cycle=3000000000 --max-cycles 80000000000 --stats"
    "$BUILD/pmusim" run --kernel "$img" --cpus 2 --append "$app" --stats --quiet \
        --inject stall:cpu=1:cycle=3000000000 --max-cycles 80000000000 >"$out" 2>&1
    rc=$?
    tr -d '\r' <"$out" | grep -E 'Linux version|tsc: Detected|Performance Events|NMI watchdog|IOAPIC\[0\]|smp: Brought up|Watchdog detected hard LOCKUP|watchdog_hardlockup_check|end Kernel panic|^cpu[01]:' |
        awk '!seen[$0]++' | head -n 20
    echo "(exit status $rc: the kernel's panic)"
    rm -f "$out"
    [ $rc = 8 ]
}
case " $ARCHES " in *" arm64 "*) linux_demo || status=1 ;; esac
case " $ARCHES " in *" x86_64 "*) linux_x86_demo || status=1 ;; esac
exit $status
