#!/bin/sh
# Kernels at Linux's addresses (issue 12): the -high guests are the ftrace and watchdog guests
# linked at the kernel's virtual address (x86_64 0xffffffff80000000 + 1 MiB) and loaded at the
# usual physical one; their own boot code maps the kernel and jumps there (guest/arch/<arch>/
# boot_high.S).  pmusim must run them exactly as the identity-mapped builds, which stay as the
# regression tests: the same console, function traces, validator summary and profile, naming
# the same functions, now at virtual addresses; --icount-check finds what the CPU fetched; the
# strict I-cache model follows DC/IC by virtual address to the physical words; the run is
# byte-identical run to run.  arm64: 0xffff800008080000 (KIMAGE_VADDR + the image's offset
# into RAM), with the MMU on (TTBR1 for the kernel, TTBR0 the identity map).  ppc32: Linux's
# KERNELBASE 0xc0000000 + 1 MiB, mapped by BATs, its exceptions taken in real mode at the
# physical vectors, which turn translation on before they touch the stack (vectors_high.S).
. "$(dirname "$0")/lib.sh" "$@"

# Addresses out, names kept: the high and identity runs must differ only there.
unaddr() { sed -E 's/^[0-9]+ //; s/0x[0-9a-f]+/ADDR/g; s/cycle [0-9]+/cycle N/' "$1"; }
# A function trace as a sorted list of calls per CPU: the boot code of the -high guests and
# the MMU change the cycle counts, so timestamps (and the merge order of equal ones) move.
calls() { grep -v '^#' "$1" | sed -E 's/ +[0-9]+\.[0-9]+: / /' | sort; }

for a in x86_64 arm64 ppc32; do
    hi=$GUESTS/$a/ftrace-high.elf
    case $a in
    x86_64) ok=1 vbase=ffffffff80 load=100000 icache= fib=fib ;;
    arm64) ok=0 vbase=ffff800008 load=40080000 icache=--icache=strict fib=fib ;;
    ppc32) ok=1 vbase=c0 load=100000 icache=--icache=strict fib=fib+0x8 ;;   # the bl _mcount
    esac
    check "$a ftrace-high: linked high, loaded low" \
        sh -c "readelf -lW '$hi' | grep -q '^  LOAD .* 0x$vbase[0-9a-f]* 0x0*$load '"
    run "$T/$a.h" --strict $icache --icount-check --guest-trace "$T/$a.h.fn" --trace "$T/$a.h.trace" "$hi"
    run "$T/$a.h2" --strict $icache --icount-check --guest-trace "$T/$a.h2.fn" --trace "$T/$a.h2.trace" "$hi"
    check "$a ftrace-high: exit status $ok" [ "$(cat "$T/$a.h.status")" = "$ok" ]
    check "$a ftrace-high: console as the identity build's" cmp -s "$EXPECTED/$a/ftrace.out" "$T/$a.h.out"
    calls "$EXPECTED/$a/ftrace.function" >"$T/$a.i.calls"
    calls "$T/$a.h.fn" >"$T/$a.h.calls"
    check "$a ftrace-high: function trace as the identity build's" cmp -s "$T/$a.i.calls" "$T/$a.h.calls"
    check "$a ftrace-high: counted what the CPU fetched" grep -q '^icount-check: cpu0 .* ok$' "$T/$a.h.err"
    grep -v '^icount' "$T/$a.h.err" | grep -v '^icache:' >"$T/$a.h.patching"
    unaddr "$EXPECTED/$a/ftrace.patching" >"$T/$a.i.pu"
    unaddr "$T/$a.h.patching" >"$T/$a.h.pu"
    check "$a ftrace-high: validator summary names the same sites" cmp -s "$T/$a.i.pu" "$T/$a.h.pu"
    check "$a ftrace-high: sites at the kernel's addresses" grep -q "^  site 0x$vbase" "$T/$a.h.err"
    check "$a ftrace-high: patches traced at virtual addresses, by name" \
        grep -q " patch addr=0x$vbase[0-9a-f]* at=$fib kind=ftrace .* pc=0x$vbase[0-9a-f]* sym=text_poke+" "$T/$a.h.trace"
    check "$a ftrace-high: code writes name the virtual address and the physical one" \
        grep -q " code-write addr=0x$vbase[0-9a-f]* at=$fib size=.* sym=text_poke+0x[0-9a-f]* pa=0x0*${load%?????}[0-9a-f]*$" "$T/$a.h.trace"
    check "$a ftrace-high: no diag" sh -c "! grep -q ' diag ' '$T/$a.h.trace'"
    check "$a ftrace-high: trace identical run to run" cmp -s "$T/$a.h.trace" "$T/$a.h2.trace"
    check "$a ftrace-high: function trace identical run to run" cmp -s "$T/$a.h.fn" "$T/$a.h2.fn"

    # SMP: x86 secondaries start at the kernel's address from the spin table, on the boot page
    # tables the boot CPU extended; arm64 ones at boot_high.S's physical secondary_boot (PSCI),
    # which turns their MMU on; ppc32 ones there too, from the spin table, loading their BATs.  On arm64 that takes the secondaries longer, and how much work
    # each CPU does depends on when it starts: the comparison with the identity build is x86's.
    run "$T/$a.h4" --cpus 4 --strict $icache --icount-check --guest-trace "$T/$a.h4.fn" "$hi"
    run "$T/$a.h4b" --cpus 4 --strict $icache --icount-check --guest-trace "$T/$a.h4b.fn" "$hi"
    check "$a ftrace-high 4 cpus: exit status $ok" [ "$(cat "$T/$a.h4.status")" = "$ok" ]
    check "$a ftrace-high 4 cpus: no violations" grep -q '^patching: .* 0 violations$' "$T/$a.h4.err"
    check "$a ftrace-high 4 cpus: every cpu traced" \
        sh -c "for c in 000 001 002 003; do grep -q \"\\[\$c\\]\" '$T/$a.h4.fn' || exit 1; done"
    check "$a ftrace-high 4 cpus: identical run to run" cmp -s "$T/$a.h4.fn" "$T/$a.h4b.fn"
    if [ $a = x86_64 ]; then
        run "$T/$a.i4" --cpus 4 --strict --icount-check --guest-trace "$T/$a.i4.fn" "$GUESTS/$a/ftrace.elf"
        calls "$T/$a.i4.fn" >"$T/$a.i4.calls"
        calls "$T/$a.h4.fn" >"$T/$a.h4.calls"
        check "$a ftrace-high 4 cpus: function trace as the identity build's" cmp -s "$T/$a.i4.calls" "$T/$a.h4.calls"
    fi
    check "$a ftrace-high 4 cpus: every cpu counted exactly" \
        [ "$(grep -c '^icount-check: cpu[0-3] .* ok$' "$T/$a.h4.err")" = 4 ]
done

# The strict I-cache model at the kernel's address: the guest that skips DC CVAU (dcbst on
# ppc32) is caught at every stale execution, as the identity build is, named by the kernel's
# symbols.
for a in arm64 ppc32; do
    case $a in
    arm64) vbase=ffff800008 at='<work_round>' ;;
    ppc32) vbase=c0 at='<work_round+0x8>' ;;
    esac
    run "$T/$a.nic" --strict --icache=strict "$GUESTS/$a/bad-no-icache-high.elf"
    run "$T/$a.nici" --strict --icache=strict "$GUESTS/$a/bad-no-icache.elf"
    check "$a bad-no-icache-high: --strict exit status 6" [ "$(cat "$T/$a.nic.status")" = 6 ]
    unaddr "$T/$a.nici.err" >"$T/$a.nic.i"
    unaddr "$T/$a.nic.err" >"$T/$a.nic.h"
    check "$a bad-no-icache-high: the identity build's report but for addresses" cmp -s "$T/$a.nic.i" "$T/$a.nic.h"
    check "$a bad-no-icache-high: stale executions at kernel addresses" \
        grep -q "^violation: cpu 0 cycle [0-9]* pc 0x$vbase[0-9a-f]* $at: stale instruction" "$T/$a.nic.err"
done

# ppc32 exceptions at the kernel's address: taken in real mode at the physical vectors, handled
# on the virtual stack (vectors_high.S) and returned from to the virtual SRR0, as the identity
# build does: the same console, naming the same sites.
run "$T/trap.h" --trace "$T/trap.h.trace" "$GUESTS/ppc32/trap-high.elf"
check "ppc32 trap-high: console as the identity build's" cmp -s "$EXPECTED/ppc32/trap.out" "$T/trap.h.out"
check "ppc32 trap-high: the system call taken from a kernel address, translation on" \
    grep -q " exception vector=0xc00 .* from=0xc0[0-9a-f]* sym=fire_sc+0x4 to=0xc00 info=0x1030$" "$T/trap.h.trace"

# ppc32 oprofile at the kernel's address, its user program at its user address 0x10000000 (a
# BAT valid in problem state), user space below KERNELBASE as Linux's is_kernel_addr() has it.
# The exception path is longer (vectors_high.S), so the counts move and the program runs fewer
# rounds; the functions, their kernel/user split and their shares stay.
op=$GUESTS/ppc32/oprofile
run "$T/op.h" --samples "$T/op.h.samples" "$op-high.elf"
run "$T/op.h2" --samples "$T/op.h2.samples" "$op-high.elf"
run "$T/op.i" --samples "$T/op.i.samples" "$op.elf"
check "ppc32 oprofile-high: exit status 1" [ "$(cat "$T/op.h.status")" = 1 ]
check "ppc32 oprofile-high: 10000 samples" [ "$(grep -c '^sample ' "$T/op.h.samples")" -eq 10000 ]
check "ppc32 oprofile-high: samples identical run to run" cmp -s "$T/op.h.samples" "$T/op.h2.samples"
check "ppc32 oprofile-high: user samples at user addresses, kernel ones at the kernel's or the vectors" \
    sh -c "! grep '^sample .* mode=user ' '$T/op.h.samples' | grep -Evq ' pc=0x1000[0-9a-f]{4} ' &&
           ! grep '^sample .* mode=kernel ' '$T/op.h.samples' | grep -Evq ' pc=0x(c0[0-9a-f]{6}|[0-9a-f]{1,4}) ' &&
           grep -q '^sample .* mode=kernel ' '$T/op.h.samples'"
head -2 "$T/op.i.out" >"$T/op.i.head"
head -2 "$T/op.h.out" >"$T/op.h.head"
check "ppc32 oprofile-high: the identity build's set-up on the console" cmp -s "$T/op.i.head" "$T/op.h.head"
# (kernel|user) symbol of every sampled row of the report, and of the guest's own table
rows() { "$PMUSIM" report "$1" "$2" --truth | awk 'NR > 1 && $4 != "-" { print ($4 == "vmlinux" ? "kernel" : "user"), $NF }' | sort; }
gtab() { sed -n 's/^oprofile: [0-9][0-9]*  *\(kernel\|user\)  *\(.*\)$/\1 \2/p' "$1" | sort; }
rows "$op-high.elf" "$T/op.h.samples" >"$T/op.h.rows"
rows "$op.elf" "$T/op.i.samples" >"$T/op.i.rows"
gtab "$T/op.h.out" >"$T/op.h.gtab"
check "ppc32 oprofile-high: the guest splits kernel/user as pmusim does" cmp -s "$T/op.h.rows" "$T/op.h.gtab"
# the functions with 5 samples or more: one that the identity build samples once or twice may
# draw none at the kernel's address (timer_interrupt, 1 of 10000 since the guest has frame
# pointers)
rows5() { "$PMUSIM" report "$1" "$2" | awk 'NR > 1 && $1 >= 5 { print ($3 == "vmlinux" ? "kernel" : "user"), $NF }' | sort; }
rows5 "$op-high.elf" "$T/op.h.samples" | grep -v '^kernel exc_prolog$' >"$T/op.h.rows-id"
rows5 "$op.elf" "$T/op.i.samples" >"$T/op.i.rows5"
check "ppc32 oprofile-high: the identity build's functions and split (and the real-mode prolog)" \
    cmp -s "$T/op.i.rows5" "$T/op.h.rows-id"
truth() { "$PMUSIM" report "$1" "$2" --truth | awk -v s="$3" '$NF == s { print $3 }'; }
for f in compare_keys do_checksum update_stats; do
    check "ppc32 oprofile-high: $f's share of the instructions as the identity build's (1 point)" \
        awk -v a="$(truth "$op.elf" "$T/op.i.samples" $f)" -v b="$(truth "$op-high.elf" "$T/op.h.samples" $f)" \
            'BEGIN { d = a - b; exit !(a != "" && b != "" && d < 1 && d > -1) }'
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
