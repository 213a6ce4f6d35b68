#!/bin/sh
# test_linux_x86_boot.sh — Debian's amd64 kernel (the kernel cache: need_linux_image amd64) booted
# by the Linux/x86 64-bit boot protocol (docs/guest-abi.md, "Booting Linux"), as far as the
# board's devices of today take it.  Only properties are checked: the kernel runs from
# startup_64 through its decompressor into start_kernel and prints, on the 16550, its banner,
# the command line pmusim gave (--append), the e820 map pmusim built (the board's RAM, the
# boot structures, DTB and zero page, and the PC's legacy area reserved), the initrd where
# pmusim put it (above the kernel's init_size window), the console switch to ttyS0, the PC's
# devices (ACPI's tables, the I/O APIC, the TSC's rate from CPUID, the RTC), Linux's Intel PMU
# driver on pmusim's PMU and its NMI watchdog enabled; the root-mount panic ends the run (status
# 8).  Twice: the same bytes; and a checkpoint taken mid-boot restores to the same end.
. "$(dirname "$0")/lib.sh" "$@"
need_linux_image amd64
INSNS=8000000000
APPEND="console=ttyS0 earlyprintk=serial,ttyS0,115200"
head -c 8192 /dev/zero >"$T/initrd.img"

boot() {            # boot NAME [OPTIONS...]
    _n=$1
    shift
    RUN_TIMEOUT=900 run "$T/$_n" run --kernel "$LINUX_IMAGE" --initrd "$T/initrd.img" --append "$APPEND" \
        --max-insns $INSNS --stats --console "$T/$_n.con" "$@"
}
boot a
check "the root-mount panic ends the run (status $(cat "$T/a.status"): $(tail -n 3 "$T/a.err" | tr '\n' ' '))" \
    [ "$(cat "$T/a.status")" = 8 ]
con=$T/a.txt
tr -d '\r' <"$T/a.con" >"$con"         # the 8250 console ends its lines with CR LF
check "the kernel's banner" grep -q "Linux version 6\.12\..*deb13-amd64" "$con"
check "the command line pmusim gave" grep -q "Command line: $APPEND\$" "$con"
# the e820 map: RAM from 0, the boot structures + DTB + zero page, RAM to the EBDA, the legacy
# area, RAM from 1 MiB to the end of the 128 MiB
grep "BIOS-e820:" "$con" | sed 's/^\[[^]]*\] //' >"$T/e820"
cat >"$T/e820.want" <<'EOF'
BIOS-e820: [mem 0x0000000000000000-0x0000000000007fff] usable
BIOS-e820: [mem 0x0000000000008000-0x0000000000021fff] reserved
BIOS-e820: [mem 0x0000000000022000-0x000000000009fbff] usable
BIOS-e820: [mem 0x000000000009fc00-0x00000000000fffff] reserved
BIOS-e820: [mem 0x0000000000100000-0x0000000007ffffff] usable
EOF
check "the e820 map pmusim built: $(tr '\n' '|' <"$T/e820")" cmp -s "$T/e820" "$T/e820.want"
# the initrd: above pref_address + init_size (setup header 0x258, 0x260) and RAM / 2, page-aligned
pref=$(od -An -tu4 -j $((0x258)) -N4 "$LINUX_IMAGE" | tr -d ' ')
init=$(od -An -tu4 -j $((0x260)) -N4 "$LINUX_IMAGE" | tr -d ' ')
at=$(((pref + init + 4095) / 4096 * 4096))
[ $at -lt $((64 << 20)) ] && at=$((64 << 20))
check "the initrd where pmusim put it ($(grep -o 'RAMDISK: .*' "$con"))" \
    grep -q "RAMDISK: \[mem $(printf '0x%08x-0x%08x' $at $((at + 8191)))\]" "$con"
check "the console switches to ttyS0" grep -q "printk: legacy console \[ttyS0\] enabled" "$con"
check "ACPI: the tables pmusim built" grep -q "ACPI: RSDP 0x00000000000E0000 .*PMUSIM" "$con"
check "ACPI: the MADT's I/O APIC" grep -q "IOAPIC\[0\]: apic_id 0, version 32, address 0xfec00000, GSI 0-23" "$con"
check "the TSC's rate, exact" grep -q "tsc: Detected 2000.000 MHz processor" "$con"
check "the RTC read" grep -q "rtc_cmos rtc_cmos: setting system clock to" "$con"
check "Linux's Intel PMU driver on pmusim's PMU" grep -q "Performance Events: .*Intel PMU driver" "$con"
check "the NMI watchdog enabled" grep -q "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter" "$con"
check "no unchecked MSR access" sh -c "! grep -q 'unchecked MSR access error' '$con'"
check "the panic's last line" grep -q "end Kernel panic - not syncing: VFS: Unable to mount root fs" "$con"
# KASLR followed (docs/guest-abi.md, "Booting Linux"): the PC report at the panic names where
# CPU 0 is; with the --dump-symbols address of that name, the offset is the one the kernel prints
run "$T/syms" --dump-symbols --kernel "$LINUX_IMAGE"
koff=$(sed -n 's/.*Kernel Offset: \(0x[0-9a-f]*\) from 0xffffffff81000000.*/\1/p' "$con")
poff=$(python3 "$SRC/tests/e2e/data/kaslr_offset.py" "$T/a.err" "$T/syms.out")
check "KASLR: pmusim names the PC at the kernel's own offset ($koff; the PC report's: $poff)" \
    sh -c "[ -n '$koff' ] && [ '$koff' != 0x0 ] && [ '$koff' = '$poff' ]"

boot b
check "deterministic: the same console" cmp -s "$T/a.con" "$T/b.con"
check "deterministic: the same end (PC, counts)" cmp -s "$T/a.err" "$T/b.err"

# a checkpoint in the middle of the boot (cycle 2.5 * 10^9: start_kernel's initcalls, after the
# decompressor), restored: the same end, the rest of the same console
boot ck --save-at "2500000000:$T/mid.ck"
boot rs --restore "$T/mid.ck"
check "checkpoint: taken" [ -s "$T/mid.ck" ]
check "checkpoint: the run that saved it ends as the others" cmp -s "$T/ck.con" "$T/a.con"
check "checkpoint: the restored run ends as the uninterrupted one" cmp -s "$T/rs.err" "$T/a.err"
n=$(wc -c <"$T/rs.con")
check "checkpoint: the restored console is the uninterrupted one's tail ($n bytes)" \
    sh -c "[ $n -gt 0 ] && tail -c $n '$T/a.con' | cmp -s - '$T/rs.con'"

finish
