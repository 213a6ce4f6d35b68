#!/bin/sh
# Kernels at Linux's addresses (issue 12): the -high guests are the ftrace and watchdog guests
# linked at the kernel's virtual address (x86_64 0xffffffff80000000 + 1 MiB) and loaded at the
# usual physical one; their own boot code maps the kernel and jumps there (guest/arch/<arch>/
# boot_high.S).  pmusim must run them exactly as the identity-mapped builds, which stay as the
# regression tests: the same console, function traces, validator summary and profile, naming
# the same functions, now at virtual addresses; --icount-check finds what the CPU fetched; the
# run is byte-identical run to run.
. "$(dirname "$0")/lib.sh" "$@"

# Addresses out, names kept: the high and identity runs must differ only there.
unaddr() { sed -E 's/^[0-9]+ //; s/0x[0-9a-f]+/ADDR/g' "$1"; }

for a in x86_64; do
    hi=$GUESTS/$a/ftrace-high.elf
    case $a in x86_64) ok=1 vbase=ffffffff80 ;; esac
    check "$a ftrace-high: linked high, loaded low" \
        sh -c "readelf -lW '$hi' | grep -q '^  LOAD .* 0x$vbase[0-9a-f]* 0x0*100000 '"
    run "$T/$a.h" --strict --icount-check --guest-trace "$T/$a.h.fn" --trace "$T/$a.h.trace" "$hi"
    run "$T/$a.h2" --strict --icount-check --guest-trace "$T/$a.h2.fn" --trace "$T/$a.h2.trace" "$hi"
    check "$a ftrace-high: exit status $ok" [ "$(cat "$T/$a.h.status")" = "$ok" ]
    check "$a ftrace-high: console as the identity build's" cmp -s "$EXPECTED/$a/ftrace.out" "$T/$a.h.out"
    check "$a ftrace-high: function trace as the identity build's" cmp -s "$EXPECTED/$a/ftrace.function" "$T/$a.h.fn"
    check "$a ftrace-high: counted what the CPU fetched" grep -q '^icount-check: cpu0 .* ok$' "$T/$a.h.err"
    grep -v '^icount' "$T/$a.h.err" >"$T/$a.h.patching"
    unaddr "$EXPECTED/$a/ftrace.patching" >"$T/$a.i.pu"
    unaddr "$T/$a.h.patching" >"$T/$a.h.pu"
    check "$a ftrace-high: validator summary names the same sites" cmp -s "$T/$a.i.pu" "$T/$a.h.pu"
    check "$a ftrace-high: sites at the kernel's addresses" grep -q "^  site 0x$vbase" "$T/$a.h.err"
    check "$a ftrace-high: patches traced at virtual addresses, by name" \
        grep -q " patch addr=0x$vbase[0-9a-f]* at=fib kind=ftrace from=\"call 0x$vbase[0-9a-f]* <__fentry__>\"" "$T/$a.h.trace"
    check "$a ftrace-high: no diag" sh -c "! grep -q ' diag ' '$T/$a.h.trace'"
    check "$a ftrace-high: trace identical run to run" cmp -s "$T/$a.h.trace" "$T/$a.h2.trace"
    check "$a ftrace-high: function trace identical run to run" cmp -s "$T/$a.h.fn" "$T/$a.h2.fn"

    # SMP: the secondaries start at the kernel's address from the spin table, on the boot
    # page tables the boot CPU extended
    run "$T/$a.h4" --cpus 4 --strict --icount-check --guest-trace "$T/$a.h4.fn" "$hi"
    run "$T/$a.i4" --cpus 4 --strict --icount-check --guest-trace "$T/$a.i4.fn" "$GUESTS/$a/ftrace.elf"
    check "$a ftrace-high 4 cpus: exit status $ok" [ "$(cat "$T/$a.h4.status")" = "$ok" ]
    check "$a ftrace-high 4 cpus: function trace as the identity build's" cmp -s "$T/$a.i4.fn" "$T/$a.h4.fn"
    check "$a ftrace-high 4 cpus: every cpu counted exactly" \
        [ "$(grep -c '^icount-check: cpu[0-3] .* ok$' "$T/$a.h4.err")" = 4 ]
done

# The watchdog at the kernel's address: the same lockup on the same CPU in the same function,
# the same trace but for addresses, and the same profile.
wd=$GUESTS/x86_64/watchdog
run "$T/wd.h" --cpus 2 --trace "$T/wd.h.trace" --samples "$T/wd.h.samples" "$wd-high.elf"
run "$T/wd.i" --cpus 2 --trace "$T/wd.i.trace" --samples "$T/wd.i.samples" "$wd.elf"
check "watchdog-high: console as the identity build's" cmp -s "$EXPECTED/x86_64/watchdog.out" "$T/wd.h.out"
check "watchdog-high: the NMI names lockup_spin at a kernel address" \
    grep -q "cpu1 nmi .* from=0xffffffff80[0-9a-f]* sym=lockup_spin+" "$T/wd.h.trace"
unaddr "$T/wd.h.trace" >"$T/wd.h.names"
unaddr "$T/wd.i.trace" >"$T/wd.i.names"
check "watchdog-high: trace as the identity build's but for addresses" cmp -s "$T/wd.i.names" "$T/wd.h.names"
"$PMUSIM" report "$wd-high.elf" "$T/wd.h.samples" --truth | sed 's/watchdog-high\.elf/watchdog.elf/' | tr -s ' ' >"$T/wd.h.report"
"$PMUSIM" report "$wd.elf" "$T/wd.i.samples" --truth | tr -s ' ' >"$T/wd.i.report"
check "watchdog-high: profile as the identity build's" cmp -s "$T/wd.i.report" "$T/wd.h.report"
finish
