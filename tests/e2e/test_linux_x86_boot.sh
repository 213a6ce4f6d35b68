#!/bin/sh
# test_linux_x86_boot.sh — Debian's amd64 kernel (the kernel cache: need_linux_image amd64) booted
# by the Linux/x86 64-bit boot protocol (docs/guest-abi.md, "Booting Linux"), as far as the
# board's devices of today take it.  Only properties are checked: the kernel runs from
# startup_64 through its decompressor into start_kernel and prints, on the 16550, its banner,
# the command line pmusim gave (--append), the e820 map pmusim built (the board's RAM, the
# boot structures, DTB and zero page, and the PC's legacy area reserved), the initrd where
# pmusim put it (above the kernel's init_size window), the console switch to ttyS0; then the run
# ends at --max-insns with every CPU's PC (it waits in calibrate_delay for a timer tick the board
# cannot give yet).  Twice: the same bytes.  Then, with the delay loop and the TSC rate given on
# the command line, to the root-mount panic.
. "$(dirname "$0")/lib.sh" "$@"
need_linux_image amd64
INSNS=2000000000
APPEND="console=ttyS0 earlyprintk=serial,ttyS0,115200"
head -c 8192 /dev/zero >"$T/initrd.img"

boot() {
    RUN_TIMEOUT=900 run "$T/$1" run --kernel "$LINUX_IMAGE" --initrd "$T/initrd.img" --append "$APPEND" \
        --max-insns $INSNS --stats --console "$T/$1.con"
}
boot a
check "ends at --max-insns (status $(cat "$T/a.status"): $(tail -n 3 "$T/a.err" | tr '\n' ' '))" [ "$(cat "$T/a.status")" = 3 ]
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
check "no panic" sh -c "! grep -q 'Kernel panic' '$con'"
check "every CPU's PC reported at the limit" grep -q "pmusim: cpu0: pc 0xffffffff[0-9a-f]* <.*> (running)" "$T/a.err"

boot b
check "deterministic: the same console" cmp -s "$T/a.con" "$T/b.con"
check "deterministic: the same end (PC, counts)" cmp -s "$T/a.err" "$T/b.err"

# Past calibrate_delay without a timer tick: the delay loop preset (lpj) and the TSC's rate given
# (tsc_early_khz: the board's 2 GHz CPU clock), the kernel boots to the root-mount panic, which
# ends the run (status 8, sim/linuxwatch.c), its perf driver on pmusim's PMU and its NMI watchdog
# enabled on the way.  (Once the board has its timers, the first boot above gets there too.)
RUN_TIMEOUT=900 run "$T/p" run --kernel "$LINUX_IMAGE" --append "$APPEND lpj=4000000 tsc_early_khz=2000000" \
    --max-insns 8000000000 --stats --console "$T/p.con"
tr -d '\r' <"$T/p.con" >"$T/p.txt"
check "with lpj and tsc_early_khz: the root-mount panic ends the run (status $(cat "$T/p.status"))" \
    [ "$(cat "$T/p.status")" = 8 ]
check "with lpj: the panic's last line" grep -q "end Kernel panic - not syncing: VFS: Unable to mount root fs" "$T/p.txt"
check "with lpj: the delay loop skipped" grep -q "Calibrating delay loop (skipped) preset value" "$T/p.txt"
check "with lpj: Linux's Intel PMU driver on pmusim's PMU" grep -q "Performance Events: .*Intel PMU driver" "$T/p.txt"
check "with lpj: the NMI watchdog enabled" grep -q "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter" "$T/p.txt"
finish
