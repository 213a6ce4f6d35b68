#!/bin/sh
# test_linux_boot.sh — Debian's unmodified arm64 kernel (the fetched one: need_linux_image, lib.sh)
# boots on 2 CPUs (`pmusim --kernel Image --append STR`, docs/guest-abi.md "Booting Linux") to the
# root-mount panic (no initramfs, no disk: "VFS: Unable to mount root fs"), whose last line ends
# the run with status 8 and the trace's `exit reason=linux-panic`.
# Checked: properties of the guest's own view in its log (Documentation/arch/arm64/booting.rst
# boot, the PMU driver, the GICv3, the architected timer, the PL011, both CPUs up, the panic),
# printk timestamps never going back, no access pmusim answered as unassigned or does not
# implement (trace `diag`), and two runs byte-identical: console, trace, --stats.
# Properties, not instruction counts: the kernel is whatever 6.12 Debian ships today.
# the scratch directory in the build tree: a boot's trace is ~6500 lines today, but a flood of
# events (every store into the image once was a code-write) reaches --trace-limit's gigabyte
TMPDIR=$(cd "$1" && pwd)
export TMPDIR
. "$(dirname "$0")/lib.sh" "$@"
need_linux_image arm64
# the console's speed named: without it Linux's pl011_console_get_options derives it from the
# divisor the firmware left (amba-pl011.c), and with IBRD = 0, pmusim's reset value, that is
# uartclk * 4 / 0 = 0 (arm64's UDIV by zero), which uart_set_options turns into 9600 baud: at
# pmusim's exact line timing the 14 KB log then takes 14.6 simulated seconds and 8 billion
# instructions polling TXFF, against 2.3 s and 1.6 billion at 115200.  1500000 is UARTCLK / 16,
# the fastest the board's 24 MHz clock allows (docs/guest-abi.md).
CMDLINE="console=ttyAMA0,1500000"
# the boot budget: a ceiling against a boot that never ends, not an expected count; and the
# host seconds one boot may take (lib.sh's run), two of them within ctest's 1800
LIMIT=${LINUX_BOOT_MAX_INSNS:-6000000000}
RUN_TIMEOUT=${RUN_TIMEOUT:-840}
PANIC_STATUS=8

# timer_rate: printk's clock runs at simulated time's rate.  Two points known both ways: CPU 1's
# start (the trace's cpu-start, at a cycle of the CPU clock) and its "CPU1: Booted secondary
# processor" line, shortly after; the run's end (cpu0's cycles in --stats, the panic's last
# line) and the log's last timestamp, shortly before.  printk's seconds between them over simulated
# seconds between them (cycles / the cpu node's clock-frequency) must be 1 within RATE_TOLERANCE
# (the two gaps are a few milliseconds of printing over a span of seconds).  sched_clock counts
# from its registration (kernel/time/sched_clock.c), so an offset is expected, not a rate error.
RATE_TOLERANCE=0.02
timer_rate() {
    hz=$("$PMUSIM" --arch arm64 --dump-dtb 2>/dev/null |
         awk '/cpu@0 /{ c = 1 } c && /clock-frequency/ { gsub(/[<>;]/, "", $3); print $3; exit }')
    c1=$(awk '$2 == "cpu1" && $3 == "cpu-start" { print $1; exit }' "$A.trace")
    c2=$(field cycles "$A.err")
    t1=$(sed -n 's/^\[ *\([0-9.]*\)\] CPU1: Booted secondary processor.*/\1/p' "$A.out" | head -n 1)
    t2=$(sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' "$A.out" | tail -n 1)
    rate=$(awk -v hz="$((hz))" -v c1="$c1" -v c2="$c2" -v t1="$t1" -v t2="$t2" \
        'BEGIN { if (hz > 0 && c2 > c1 && t1 != "" && t2 > t1) printf "%.4f", (t2 - t1) / ((c2 - c1) / hz) }')
    echo "printk seconds per simulated second: ${rate:-?} (CPU1 up at cycle ${c1:-?} [${t1:-?}], the end at ${c2:-?} [${t2:-?}])"
    check "printk timestamps at the timer's rate: ${rate:-?} s per simulated s (CPU1 up at cycle ${c1:-?}, [${t1:-?}]; end at ${c2:-?}, [${t2:-?}]; $((hz)) Hz)" \
        awk -v r="$rate" -v tol=$RATE_TOLERANCE 'BEGIN { exit !(r != "" && r > 1 - tol && r < 1 + tol) }'
}

boot() {    # boot NAME: the kernel on 2 CPUs with the trace and the stats, into T/NAME/ (the same
            # file names in both runs: pmusim's messages name them)
    mkdir "$T/$1"
    (cd "$T/$1" && run run --cpus 2 --max-insns "$LIMIT" --stats --quiet --trace run.trace \
        --kernel "$LINUX_IMAGE" --append "$CMDLINE")
}
A=$T/a/run
B=$T/b/run

boot a
grep -m1 'Linux version' "$A.out"
echo "boot: $(sed -n 's/.*insns=\([0-9]*\).*/\1/p' "$A.err" | awk '{ s += $1 } END { print s }') instructions," \
    "$(wc -c <"$A.out") console bytes, $(wc -l <"$A.trace") trace lines"
check "the run ends at the panic, status $PANIC_STATUS (got $(cat "$A.status"): $(tail -n 3 "$A.err" | tr '\n' ' '))" \
    [ "$(cat "$A.status")" = $PANIC_STATUS ]
check "the trace's exit line says linux-panic" grep -q ' exit .*reason=linux-panic' "$A.trace"
for line in 'Booting Linux on physical CPU' 'hw perfevents: enabled with armv8' 'GICv3: ' 'arch_timer: ' \
    'ttyAMA0 at MMIO 0x9000000' 'smp: Brought up 1 node, 2 CPUs' 'VFS: Unable to mount root fs' \
    'Kernel panic - not syncing' '---\[ end Kernel panic - not syncing'; do
    check "console: '$line'" grep -q -- "$line" "$A.out"
done

# printk timestamps ([seconds.micros]) never decrease along the log
sed -n 's/^\[ *\([0-9]*\)\.\([0-9]*\)\].*/\1\2/p' "$A.out" >"$T/ts"
check "printk timestamps present ($(wc -l <"$T/ts") lines)" [ "$(wc -l <"$T/ts")" -gt 100 ]
back=$(awk 'NR > 1 && $1 + 0 < prev + 0 { print NR ": " prev " > " $1; exit } { prev = $1 }' "$T/ts")
check "printk timestamps monotonic (${back:-ok})" [ -z "$back" ]
timer_rate

grep -E ' diag what=(unimplemented|unassigned)' "$A.trace" | head -n 5 >"$T/diags"
check "no unimplemented/unassigned diag in the trace: $(head -c 600 "$T/diags" | tr '\n' '|')" [ ! -s "$T/diags" ]

boot b
check "second boot: console identical" cmp -s "$A.out" "$B.out"
check "second boot: trace identical" cmp -s "$A.trace" "$B.trace"
check "second boot: --stats and messages identical" cmp -s "$A.err" "$B.err"
check "second boot: status identical" cmp -s "$A.status" "$B.status"
finish
