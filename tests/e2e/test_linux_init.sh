#!/bin/sh
# The Linux userspace scenario (issue 15, item 4; docs/guest-abi.md, "Linux userspace
# scenario"): Debian's unmodified arm64 kernel boots with the project's initramfs
# (guest/linux/: a static init of our own), whose init runs the steps its command line names and
# powers off.  Checked: the initramfs is reproducible (built twice in other directories: the same
# bytes); every step's markers; the sched_switch format; the function tracer's lines name the
# filtered functions and function_graph shows vfs_read; perf's instruction count of the known
# user loop is exactly the expected one, and sampling gives samples; /proc/kallsyms names the
# symbols looked up; dmesg shows the PMU driver.  With --inject (stall:cpu=1), the lockup step:
# Linux reports the hard lockup of CPU 1 and the init sees it (PMUSIM_LINUX_STALL_CYCLE, default
# 2500000000, is the cycle of the stall: after the init started waiting).  The runs' guest
# instructions and host seconds are printed.
#
# SKIP (77) without the kernel (the fetched Debian kernel: need_linux_image, lib.sh).
# PMUSIM_LINUX_MAX_INSNS bounds the run (default 20000000000).  The console runs at 1500000 baud
# (docs/guest-abi.md, "Booting Linux": at Linux's default 9600 the log alone takes seconds).
. "$(dirname "$0")/lib.sh" "$@"

need_linux_image arm64
IMAGE=$LINUX_IMAGE
CPIO=$GUESTS/arm64/initramfs.cpio
MAX_INSNS=${PMUSIM_LINUX_MAX_INSNS:-20000000000}
STEPS="tracefs ftrace perf kallsyms dmesg"

# ---- the initramfs: reproducible from any build directory
check_initramfs arm64

# ---- the boot
[ -f "$IMAGE" ] || { echo "SKIP: no arm64 kernel at $IMAGE (PMUSIM_LINUX_ARM64_IMAGE)"; finish_skip=1; }
if [ "${finish_skip:-0}" = 1 ]; then
    echo "$(basename "$0"): $CHECKS checks passed, $FAILS failed (the boot skipped)"
    [ "$FAILS" -eq 0 ] || exit 1
    exit 77
fi
start=$(date +%s)
RUN_TIMEOUT=3000 run "$T/boot" --kernel "$IMAGE" --initrd "$CPIO" \
    --append "console=ttyAMA0,1500000 -- $STEPS" --max-insns "$MAX_INSNS" --stats --quiet
secs=$(($(date +%s) - start))
out=$T/boot.txt
tr -d '\r' <"$T/boot.out" >"$out"          # the console's tty turns each \n into \r\n (ONLCR)
insns=$(field insns "$T/boot.err")
echo "scenario: $insns guest instructions, $secs host seconds (status $(cat "$T/boot.status"))"
check "boot: exit status 0 (the init powered off: PSCI SYSTEM_OFF)" [ "$(cat "$T/boot.status")" = 0 ]
check "boot: the init started with its steps" grep -q "^pmusim-init: start (5 arguments)" "$out"
for step in mount $STEPS; do
    check "$step: begin" grep -q "^pmusim-init: $step begin\$" "$out"
    check "$step: ok" grep -q "^pmusim-init: $step ok\$" "$out"
done
check "no step failed" sh -c "! grep -q '^pmusim-init: .*FAIL' '$out'"
check "done: 6 ok, 0 failed" grep -q "^pmusim-init: done: 6 ok, 0 failed\$" "$out"

check_scenario_traces "$out"

# perf: the exact user instruction count of the known loop, and samples
line=$(grep "^pmusim-init: perf: loop of" "$out")
exp=$(echo "$line" | sed -n 's/.* expected \([0-9]*\) measured.*/\1/p')
got=$(echo "$line" | sed -n 's/.* measured \([0-9]*\)$/\1/p')
check "perf: instructions measured ($got) = expected ($exp)" [ -n "$exp" ] && [ "$exp" = "$got" ]
check "perf: cycles counted" grep -q "^pmusim-init: perf: cycles measured [1-9]" "$out"
check "perf: samples > 0" grep -q "^pmusim-init: perf: sampling every [0-9]* instructions: [1-9][0-9]* samples" "$out"
check "perf: sample IPs printed" grep -q "^pmusim-init: perf: sample ip 0x" "$out"

# kallsyms: the names looked up, with addresses (kptr_restrict=0)
for s in _text _stext schedule vfs_read do_sys_openat2 start_kernel; do
    check "kallsyms: $s" grep -q "^pmusim-init: kallsyms: [0-9a-f]\{16\} [TtDdRr] $s\$" "$out"
done
check "kallsyms: addresses are not hidden" sh -c "! grep -q '^pmusim-init: kallsyms: 0000000000000000 ' '$out'"
# ... and each is the line pmusim read out of the Image (its kallsyms tables, --dump-symbols)
"$PMUSIM" --dump-symbols --kernel "$IMAGE" >"$T/symbols.map" 2>"$T/symbols.err"
sed -n 's/^pmusim-init: kallsyms: \([0-9a-f]\{16\} [A-Za-z] [^ \t]*\)$/\1/p' "$out" >"$T/guest.kallsyms"
check "kallsyms: the guest printed lines to compare" [ -s "$T/guest.kallsyms" ]
while read -r line; do
    check "kallsyms: the kernel's '$line' is pmusim's too" grep -qxF "$line" "$T/symbols.map"
done <"$T/guest.kallsyms"

# dmesg: the PMU driver
check "dmesg: hw perfevents" grep -q "^pmusim-init: dmesg: hw perfevents: enabled with armv8" "$out"

grep -a "^pmusim-init: \(perf: [lcs]\|kallsyms: [0-9]* of\|done\)" "$out"
[ "$FAILS" -eq 0 ] || { echo "--- the init's lines:"; grep -a "pmusim-init" "$out" | head -n 200; }

# ---- the hard-lockup detector, with pmusim's fault injection (when this pmusim has it): CPU 1
# stalls, interrupts masked, from a cycle after the init started waiting; Linux's buddy
# detector on CPU 0 reports it, the init sees the report in /dev/kmsg and powers off.
if "$PMUSIM" --help 2>&1 | grep -q -- '--inject'; then
    start=$(date +%s)
    # The report comes about 2.3 s (guest) after the stall; right after it CPU 0 waits 10 s for
    # CPU 1's backtrace (nmi_trigger_cpumask_backtrace), which CPU 1, its interrupts masked and no
    # pseudo-NMI, never gives: the run ends at --max-cycles, after the report.
    RUN_TIMEOUT=3000 run "$T/lockup" --cpus 2 --kernel "$IMAGE" --initrd "$CPIO" \
        --inject "stall:cpu=1:cycle=${PMUSIM_LINUX_STALL_CYCLE:-2500000000}" --max-cycles 5300000000 \
        --append "console=ttyAMA0,1500000 -- lockup thresh=1 timeout=30" --stats --quiet
    secs=$(($(date +%s) - start))
    echo "lockup: $(grep -o 'cpu0: insns=[0-9]*' "$T/lockup.err"), $secs host seconds (status $(cat "$T/lockup.status"))"
    out=$T/lockup.txt
    tr -d '\r' <"$T/lockup.out" >"$out"
    check "lockup: ended by --max-cycles (status 3)" [ "$(cat "$T/lockup.status")" = 3 ]
    check "lockup: CPU 1 stalled" grep -q "^cpu1: .* exit=stalled" "$T/lockup.err"
    check "lockup: watchdog_thresh set to 1" grep -q "^pmusim-init: lockup: /proc/sys/kernel/watchdog_thresh = 1\$" "$out"
    check "lockup: the kernel reported cpu 1" grep -q "watchdog: Watchdog detected hard LOCKUP on cpu 1" "$out"
    check "lockup: and asked CPU 1 for its backtrace" grep -q "Sending NMI from CPU 0 to CPUs 1" "$out"
else
    echo "note: this pmusim has no --inject: the lockup step not run"
fi
finish
