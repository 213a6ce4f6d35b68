#!/bin/sh
# Time travel (sim/timetravel.h) through --time-travel-check STRIDE (sim/ttcheck.h): every STRIDE
# instructions of a CPU the run steps back one instruction (reverse-stepi), forward again, and
# back to a breakpoint (reverse-continue), and compares the whole machine state, byte for byte,
# with the one the run reached going forward; a difference makes the exit status 5.  On SMP
# guests of the three architectures, the watchdogs (PMU overflows as NMIs and pseudo-NMIs), the
# ftrace guests (code patching, --strict, the strict I-cache model, --guest-trace), the paging
# guests (page faults, the guest's MMU) and the
# oprofile guests (--samples): no difference, and every output (console, trace, samples, guest
# trace, the validator's summary, --stats, the status) is that of the run without time travel:
# what the re-execution writes again is muted.  Two checked runs are byte-identical.
# (That the check can fail: docs/debugging.md, "Time travel", tells how a PMU whose counters
# are not restored fails it.)
. "$(dirname "$0")/lib.sh" "$@"

# scenario NAME STRIDE ARGS...: the run plain and checked; outputs compared
scenario() {
    name=$1
    stride=$2
    shift 2
    run "$T/$name.plain" --stats --console "$T/$name.plain.con" --trace "$T/$name.plain.tr" "$@"
    run "$T/$name.tt" --stats --console "$T/$name.tt.con" --trace "$T/$name.tt.tr" \
        --time-travel-check "$stride" "$@"
    check "$name: same status" cmp -s "$T/$name.plain.status" "$T/$name.tt.status"
    for f in con tr out; do
        check "$name: the $f output differs from the run without time travel" cmp -s "$T/$name.plain.$f" "$T/$name.tt.$f"
    done
    grep -v '^time-travel check: ' "$T/$name.tt.err" >"$T/$name.tt.err2"
    check "$name: stderr (--stats, summaries) differs" cmp -s "$T/$name.plain.err" "$T/$name.tt.err2"
    summary=$(grep '^time-travel check: ' "$T/$name.tt.err")
    points=$(echo "$summary" | sed -n 's/^time-travel check: \([0-9]*\) points.*/\1/p')
    check "$name: no difference ($summary)" sh -c "echo '$summary' | grep -q ' 0 differences'"
    check "$name: at least 3 points ($summary)" [ "${points:-0}" -ge 3 ]
    check "$name: every point stepped back and continued back ($summary)" \
        sh -c "echo '$summary' | grep -q ' $points reverse-stepi .* $points reverse-continue'"
}

for a in $ARCHES; do
    scenario $a-smp 1000 --cpus 4 "$GUESTS/$a/smp.elf"
done
# the guests' MMU on, page faults (an exception entry inside an instruction's run), breakpoints on
# instructions a trap site emulates
scenario x86_64-paging 211 "$GUESTS/x86_64/paging.elf"
scenario arm64-paging 613 "$GUESTS/arm64/paging.elf"
scenario ppc32-paging 1999 "$GUESTS/ppc32/paging.elf"
scenario x86_64-watchdog 7000000 --cpus 2 "$GUESTS/x86_64/watchdog.elf"
scenario arm64-watchdog 3000000 --cpus 2 "$GUESTS/arm64/watchdog.elf"
scenario x86_64-ftrace 60000 --cpus 2 --strict --guest-trace "$T/x86_64-ftrace.fn" "$GUESTS/x86_64/ftrace.elf"
for a in arm64 ppc32; do
    scenario $a-ftrace 30000 --cpus 4 --strict --icache=strict --guest-trace "$T/$a-ftrace.fn" "$GUESTS/$a/ftrace.elf"
done
for a in arm64 ppc32; do
    scenario $a-oprofile 2000000 --samples "$T/$a-oprofile.samples" "$GUESTS/$a/oprofile.elf"
done

# the files written at the end, against runs without time travel
run "$T/ftrace-plain" --cpus 4 --strict --icache=strict --guest-trace "$T/ftrace-plain.fn" "$GUESTS/arm64/ftrace.elf"
check "arm64-ftrace: the guest trace differs" cmp -s "$T/ftrace-plain.fn" "$T/arm64-ftrace.fn"
run "$T/oprofile-plain" --samples "$T/oprofile-plain.samples" "$GUESTS/ppc32/oprofile.elf"
check "ppc32-oprofile: the samples differ" cmp -s "$T/oprofile-plain.samples" "$T/ppc32-oprofile.samples"

# the other trace outputs: trace.dat and the JSON trace (its counter samples at round ends)
run "$T/json-plain" --cpus 2 --trace-dat "$T/plain.dat" --trace-json "$T/plain.json" "$GUESTS/x86_64/watchdog.elf"
run "$T/json-tt" --cpus 2 --trace-dat "$T/tt.dat" --trace-json "$T/tt.json" --time-travel-check 7000000 \
    "$GUESTS/x86_64/watchdog.elf"
check "x86_64-watchdog: the trace.dat differs" cmp -s "$T/plain.dat" "$T/tt.dat"
check "x86_64-watchdog: the JSON trace differs" cmp -s "$T/plain.json" "$T/tt.json"

# determinism: a checked run again, every byte
run "$T/again" --stats --console "$T/again.con" --trace "$T/again.tr" --time-travel-check 1000 --cpus 4 \
    "$GUESTS/arm64/smp.elf"
for f in con tr out err status; do
    check "arm64-smp: a second checked run's $f differs" cmp -s "$T/arm64-smp.tt.$f" "$T/again.$f"
done
finish
