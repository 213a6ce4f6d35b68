#!/bin/sh
# test_linux_x86_init.sh — the Linux userspace scenario on x86-64 (issue 16, item 5;
# docs/guest-abi.md, "Linux userspace scenario"): the same init program as arm64's
# (guest/linux/, its x86-64 layer in guest/linux/arch/x86_64/) in build/guest/x86_64/initramfs.cpio,
# run by Debian's unmodified amd64 kernel (need_linux_image amd64).  Checked:
#   - the initramfs is reproducible (built twice in other directories: the same bytes);
#   - the perf step's expected count is the measured loop's own: its disassembly has
#     LOOP_INSNS_PER_ITER instructions in the loop and LOOP_FIXED_INSNS from its end to the
#     DISABLE call's SYSCALL (guest/linux/arch/x86_64/sys.h);
#   - under QEMU (when qemu-system-x86_64 is installed), which boots this kernel to userspace
#     today: every step's markers, properties only (the sched_switch format, the workload's sched
#     events, the function tracer's filtered functions and vfs_read's graph, /proc/kallsyms's
#     names with addresses, the PMU driver's line in dmesg).  QEMU TCG gives the guest no PMU:
#     Linux says "PMU not available due to virtualization", perf_event_open of a hardware event
#     fails with ENOENT and the perf step is skipped (not failed), consistently with what the
#     kernel printed; done: 5 ok, 0 failed, 1 skipped; the init powers the machine off;
#   - the lockup step's mechanics under QEMU on 2 CPUs (its settings read and written; with no
#     PMU, no NMI watchdog: it fails after its timeout, as it must).
#   - on pmusim, 1 CPU, `-- perf kallsyms dmesg`: Linux's Intel PMU driver and NMI watchdog on
#     pmusim's PMU, the perf step's exact count of the loop (2 per iteration + 4) and its
#     samples in the loop, the init's power-off (ACPI S5).  The other steps run on pmusim too
#     (tracefs passed in a trial), but ftrace costs many more guest instructions: not here.
#
# SKIP (77) without the kernel (the fetched Debian kernel: need_linux_image, lib.sh).
. "$(dirname "$0")/lib.sh" "$@"

need_linux_image amd64
CPIO=$GUESTS/x86_64/initramfs.cpio
INIT=$GUESTS/x86_64/init
SYS_H=$SRC/guest/linux/arch/x86_64/sys.h
STEPS="tracefs ftrace perf kallsyms dmesg"
QEMU=${QEMU_X86_64:-qemu-system-x86_64}

# ---- the initramfs: reproducible from any build directory
check_initramfs x86_64
check "init: a static x86-64 executable" sh -c "file '$INIT' | grep -q 'ELF 64-bit LSB executable, x86-64.*statically linked'"

# ---- the measured loop's instruction count, from its disassembly
objdump -d --no-show-raw-insn "$INIT" >"$T/init.dis"
# insns FROM TO: the instructions from label FROM up to (not including) label TO
insns() {
    sed -n "/^[0-9a-f]* <$1>:/,/^[0-9a-f]* <$2>:/p" "$T/init.dis" | grep -c '^ *[0-9a-f]*:'
}
per_iter=$(insns measured_loop_body measured_loop_end)
# from measured_loop_end through the DISABLE call's syscall (the ret after it runs in the kernel's
# wake: not between the ioctls)
fixed=$(sed -n '/^[0-9a-f]* <measured_loop_end>:/,/syscall/p' "$T/init.dis" | grep -c '^ *[0-9a-f]*:')
want_iter=$(sed -n 's/^#define LOOP_INSNS_PER_ITER \([0-9]*\)$/\1/p' "$SYS_H")
want_fixed=$(($(sed -n 's/^#define LOOP_FIXED_INSNS (\(.*\))$/\1/p' "$SYS_H")))
check "loop: $per_iter instructions per iteration = LOOP_INSNS_PER_ITER ($want_iter)" [ "$per_iter" = "$want_iter" ]
check "loop: $fixed instructions after it through the SYSCALL = LOOP_FIXED_INSNS ($want_fixed)" [ "$fixed" = "$want_fixed" ]
check "loop: its last instruction before the kernel is the SYSCALL" \
    sh -c "sed -n '/<measured_loop_end>:/,/ret/p' '$T/init.dis' | tail -n 2 | head -n 1 | grep -q syscall"

# ---- QEMU (TCG): the kernel to userspace, the scenario's steps
qemu_checks() {
    start=$(date +%s)
    timeout -k 10 900 "$QEMU" -m 512 -smp 1 -nographic -no-reboot -kernel "$LINUX_IMAGE" -initrd "$CPIO" \
        -append "console=ttyS0 panic=-1 -- $STEPS" >"$T/qemu.raw" 2>"$T/qemu.err"
    status=$?
    tr -d '\r' <"$T/qemu.raw" >"$T/qemu.txt"
    out=$T/qemu.txt
    echo "qemu: $(($(date +%s) - start)) host seconds (status $status)"
    check "qemu: exit status 0 (the init powered off)" [ "$status" = 0 ]
    check "qemu: the kernel powered down" grep -q "reboot: Power down" "$out"
    check "the init started with its steps" grep -q "^pmusim-init: start (5 arguments)" "$out"
    for step in mount tracefs ftrace kallsyms dmesg; do
        check "$step: begin" grep -q "^pmusim-init: $step begin\$" "$out"
        check "$step: ok" grep -q "^pmusim-init: $step ok\$" "$out"
    done
    check "no step failed" sh -c "! grep -q '^pmusim-init: .*FAIL' '$out'"
    check "done: 5 ok, 0 failed, 1 skipped" grep -q "^pmusim-init: done: 5 ok, 0 failed, 1 skipped\$" "$out"

    # perf: no PMU under TCG, so the kernel says and so the step says
    check "perf: begin" grep -q "^pmusim-init: perf begin\$" "$out"
    check "perf: skipped: no hardware PMU (ENOENT)" grep -q "^pmusim-init: perf skipped: no hardware PMU (ENOENT)\$" "$out"
    check "perf: not ok (no PMU)" sh -c "! grep -q '^pmusim-init: perf ok' '$out'"
    check "perf: the kernel said it has no PMU" \
        grep -q "^pmusim-init: dmesg: Performance Events: PMU not available due to virtualization" "$out"

    check_scenario_traces "$out"
    check "ftrace: do_sys_openat2 called from x86-64's syscall wrapper" \
        grep -q "^pmusim-init: ftrace: function: .*: do_sys_openat2 <-__x64_sys_openat" "$out"

    # kallsyms: the names looked up, with addresses in the kernel's top 2 GiB (kptr_restrict=0)
    for s in _text _stext schedule vfs_read do_sys_openat2 start_kernel; do
        check "kallsyms: $s" grep -q "^pmusim-init: kallsyms: ffffffff[89a-f][0-9a-f]\{7\} [TtDdRr] $s\$" "$out"
    done

    # dmesg: the PMU driver's line and the PC's devices
    check "dmesg: the I/O APIC" grep -q "^pmusim-init: dmesg: IOAPIC\[0\]: " "$out"
    check "dmesg: the 16550" grep -q "^pmusim-init: dmesg: .*ttyS0 at I/O 0x3f8" "$out"

    grep -a "^pmusim-init: \(perf\|kallsyms: [0-9]* of\|done\)" "$out"
    [ "$FAILS" -eq 0 ] || { echo "--- the init's lines:"; grep -a "pmusim-init" "$out" | head -n 200; }

    # ---- the lockup step's mechanics under QEMU, 2 CPUs: pinned to CPU 0, the watchdog's settings
    # read, watchdog_thresh written; without a PMU Linux's perf NMI watchdog is off (nmi_watchdog 0:
    # "Perf NMI watchdog permanently disabled"), so nothing reports and the step fails after its
    # timeout, as it must when no detector runs
    timeout -k 10 600 "$QEMU" -m 512 -smp 2 -nographic -no-reboot -kernel "$LINUX_IMAGE" -initrd "$CPIO" \
        -append "console=ttyS0 panic=-1 -- lockup thresh=1 timeout=3" >"$T/lockup.raw" 2>"$T/lockup.err"
    status=$?
    out=$T/lockup.txt
    tr -d '\r' <"$T/lockup.raw" >"$out"
    check "lockup: qemu exit status 0 (the init powered off)" [ "$status" = 0 ]
    check "lockup: begin" grep -q "^pmusim-init: lockup begin\$" "$out"
    check "lockup: the soft-lockup watchdog on" grep -q "^pmusim-init: lockup: /proc/sys/kernel/watchdog = 1\$" "$out"
    check "lockup: the NMI watchdog off without a PMU" \
        grep -q "^pmusim-init: lockup: /proc/sys/kernel/nmi_watchdog = 0\$" "$out"
    check "lockup: watchdog_thresh set to 1" grep -q "^pmusim-init: lockup: /proc/sys/kernel/watchdog_thresh = 1\$" "$out"
    check "lockup: nothing reported, the step fails" \
        grep -q "^pmusim-init: lockup FAIL: no hard lockup reported in time\$" "$out"
    check "lockup: done: 1 ok, 1 failed" grep -q "^pmusim-init: done: 1 ok, 1 failed\$" "$out"
}

if command -v "$QEMU" >/dev/null; then
    qemu_checks
else
    echo "note: no $QEMU: the scenario under QEMU is not run (Debian: qemu-system-x86)"
fi

# ---- pmusim, 1 CPU: the kernel to the init, whose perf step counts on pmusim's PMU
# (3.7·10^9 guest instructions: minutes).  The steps that need the PMU, kallsyms and dmesg.
pmusim_checks() {
    out=$1 err=$2 status=$3
    check "pmusim: exit status 0 (status $status: the init powered off)" [ "$status" = 0 ]
    check "pmusim: ended by the ACPI power-off" grep -q "^cpu0: .* exit=acpi-poweroff" "$err"
    check "pmusim: the init started with its steps" grep -q "^pmusim-init: start (3 arguments)" "$out"
    for step in mount perf kallsyms dmesg; do
        check "pmusim: $step: begin" grep -q "^pmusim-init: $step begin\$" "$out"
        check "pmusim: $step: ok" grep -q "^pmusim-init: $step ok\$" "$out"
    done
    check "pmusim: no step failed" sh -c "! grep -q '^pmusim-init: .*FAIL' '$out'"
    check "pmusim: done: 4 ok, 0 failed" grep -q "^pmusim-init: done: 4 ok, 0 failed\$" "$out"
    # perf: the exact user instruction count, 2 per iteration + 4 (the disassembly's, above)
    want=$((1000000 * want_iter + want_fixed))
    line=$(grep "^pmusim-init: perf: loop of 1000000 iterations" "$out")
    exp=$(echo "$line" | sed -n 's/.* expected \([0-9]*\) measured.*/\1/p')
    got=$(echo "$line" | sed -n 's/.* measured \([0-9]*\)$/\1/p')
    check "pmusim: perf: expected ($exp) = the loop's count ($want)" [ "$exp" = "$want" ]
    check "pmusim: perf: instructions measured ($got) = expected ($exp)" [ -n "$got" ] && [ "$exp" = "$got" ]
    check "pmusim: perf: cycles counted" grep -q "^pmusim-init: perf: cycles measured [1-9]" "$out"
    check "pmusim: perf: samples, in the loop" \
        grep -q "^pmusim-init: perf: sampling every 100000 instructions: [1-9][0-9]* samples, [1-9][0-9]* in the loop" "$out"
    body=$(sed -n 's/^0*\([0-9a-f]*\) <measured_loop_body>:$/\1/p' "$T/init.dis")
    check "pmusim: perf: a sample at the loop (0x$body)" grep -q "^pmusim-init: perf: sample ip 0x$body\$" "$out"
    # dmesg: Linux's Intel PMU driver on pmusim's PMU, and its NMI watchdog
    check "pmusim: dmesg: the Intel PMU driver" \
        grep -q "^pmusim-init: dmesg: Performance Events: .*Intel PMU driver\.\$" "$out"
    check "pmusim: dmesg: the NMI watchdog" \
        grep -q "^pmusim-init: dmesg: NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.\$" "$out"
    check "pmusim: kallsyms: 6 of 6 names found" grep -q "^pmusim-init: kallsyms: 6 of 6 names found\$" "$out"
}
start=$(date +%s)
RUN_TIMEOUT=3000 run "$T/p" run --kernel "$LINUX_IMAGE" --initrd "$CPIO" \
    --append "console=ttyS0 -- perf kallsyms dmesg" --max-insns 6000000000 --stats --quiet
tr -d '\r' <"$T/p.out" >"$T/p.txt"
echo "pmusim: $(grep -o 'cpu0: insns=[0-9]*' "$T/p.err"), $(($(date +%s) - start)) host seconds (status $(cat "$T/p.status"))"
pmusim_checks "$T/p.txt" "$T/p.err" "$(cat "$T/p.status")"
grep -a "^pmusim-init: \(perf: [lcs]\|done\)" "$T/p.txt"
[ "$FAILS" -eq 0 ] || { echo "--- the init's lines under pmusim:"; grep -a "pmusim-init" "$T/p.txt" | head -n 100; }

finish
