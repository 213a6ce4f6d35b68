#!/bin/sh
# Guests with their MMU on, under pmusim's page walk (cpu/mmu.c, the backends' translate):
# the paging guest demand-pages a window and checks each fault's address and syndrome (x86 CR2
# and #PF error code, arm64 FAR_EL1 and ESR_EL1, ppc32 DAR and DSISR or SRR0 and SRR1), the
# accessed and dirty flags (arm64: the Access flag fault; ppc32: R and C), code remapped under
# the same virtual page and code rewritten through a second virtual alias, then a user program
# (x86 ring 3, arm64 EL0, ppc32 problem state) whose faults and system calls reach the kernel
# (arm64: at VBAR_EL1 + 0x400, the kernel's own at + 0x200).  Under --icount-check a CPU that
# counted stale code (decoded before the remap or the write) shows as a mismatch; the run is
# byte-identical run to run.
. "$(dirname "$0")/lib.sh" "$@"

for a in x86_64 arm64 ppc32; do
    g=$GUESTS/$a/paging.elf
    # a guest's exit 0: isa-debug-exit's (0 << 1) | 1 on x86 and ppc32, PSCI SYSTEM_OFF on
    # arm64; the entry the walk refused: a reserved bit (x86), an output address above
    # TCR_EL1.IPS (arm64), a direct-store segment register (ppc32)
    case $a in
    x86_64) ok=1 bad='reserved bits set in the level-1 entry' ;;
    arm64) ok=0 bad='address size fault at level 3: entry 0x[0-9a-f]* at physical' ;;
    ppc32) ok=1 bad='direct-store segment: SR9 = 0xa0000900 (T = 1) mapping 0x90004008' ;;
    esac
    run "$T/$a.1" --icount-check --trace "$T/$a.1.trace" "$g"
    run "$T/$a.2" --icount-check --trace "$T/$a.2.trace" "$g"
    check "$a paging: console as recorded" cmp -s "$T/$a.1.out" "$EXPECTED/$a/paging.out"
    [ -f "$T/$a.1.out" ] && ! cmp -s "$T/$a.1.out" "$EXPECTED/$a/paging.out" && diff "$EXPECTED/$a/paging.out" "$T/$a.1.out"
    check "$a paging: guest exit 0 (status $ok)" [ "$(cat "$T/$a.1.status")" = "$ok" ]
    check "$a paging: counted what the CPU fetched" grep -q '^icount-check: cpu0 .* ok$' "$T/$a.1.err"
    check "$a paging: the refused entry is a diag naming it" grep -q "diag what=page-table .*$bad" "$T/$a.1.trace"
    check "$a paging: trace identical run to run" cmp -s "$T/$a.1.trace" "$T/$a.2.trace"
    check "$a paging: console identical run to run" cmp -s "$T/$a.1.out" "$T/$a.2.out"
done

# ppc32: a page table outside RAM is a machine check of the table search, with a diag naming the
# PTE it could not read and SDR1 (tests/e2e/data/ppc32-htab-unbacked.S)
src=$(dirname "$0")/data/ppc32-htab-unbacked.S
powerpc-linux-gnu-as -o "$T/htab.o" "$src" && powerpc-linux-gnu-ld -Ttext=0 -e 0 -o "$T/htab.elf" "$T/htab.o" &&
    powerpc-linux-gnu-objcopy -O binary "$T/htab.elf" "$T/htab.bin" || { echo "cannot assemble $src"; exit 1; }
run "$T/htab" run --icount-check --trace "$T/htab.trace" --arch ppc32 --load-addr 0 --max-insns 1000 "$T/htab.bin"
check "ppc32 page table outside RAM: a machine check (status $(cat "$T/htab.status"))" [ "$(cat "$T/htab.status")" = 1 ]
check "ppc32 page table outside RAM: the diag names the PTE and SDR1" grep -q \
    'what=page-table .*for 0x10000010 read nothing at physical 0x200048c0 (SDR1 0x20000000, the table is outside RAM): machine check' \
    "$T/htab.trace"
check "ppc32 page table outside RAM: the count is exact" grep -q "icount-check: cpu0 .* ok" "$T/htab.err"
# x86 SYSCALL never reads or writes the GDT: with accessed bits clear they stay clear, and with
# the GDT unmapped the handler still runs, with a diag for each selector pmusim could not load
# into the engine (tests/e2e/data/x86-syscall-gdt.S)
src=$(dirname "$0")/data/x86-syscall-gdt.S
as --64 -o "$T/sc.o" "$src" && ld -Ttext=0x100000 -e 0x100000 -o "$T/sc.elf" "$T/sc.o" &&
    objcopy -O binary "$T/sc.elf" "$T/sc.bin" || { echo "cannot assemble $src"; exit 1; }
run "$T/sc" run --icount-check --trace "$T/sc.trace" --arch x86_64 --load-addr 0x100000 --max-insns 1000 "$T/sc.bin"
check "x86 SYSCALL: both handlers ran, the GDT untouched (status $(cat "$T/sc.status"))" [ "$(cat "$T/sc.status")" = 1 ]
check "x86 SYSCALL with the GDT unmapped: a diag for SS and for CS" [ "$(grep -c \
    'what=syscall-segment .*selector 0x1[08] not loaded (its descriptor at linear 0x70000000001[08]: not mapped)' \
    "$T/sc.trace")" = 2 ]
check "x86 SYSCALL: the count is exact" grep -q "icount-check: cpu0 .* ok" "$T/sc.err"
# arm64 EL0: the user program's three Data Aborts and two SVCs (trace info: EC and ISS, without
# IL) are taken at the vector for a lower EL using AArch64, VBAR_EL1 + 0x400; the kernel's own
# faults at VBAR_EL1 + 0x200 (current EL with SP_EL1).  The user program runs at window page 9.
tr=$T/arm64.1.trace
to_of() { sed -n 's/.* to=\(0x[0-9a-f]*\).*/\1/p' | sort -u; }
kv=$(grep ' exception ' "$tr" | grep -v ' from=0x80009' | to_of)
uv=$(grep ' exception .* from=0x80009' "$tr" | to_of)
uinfo=$(grep ' exception .* from=0x80009' "$tr" | sed -n 's/.* info=\(0x[0-9a-f]*\).*/\1/p' | tr '\n' ' ')
one_each() { [ "$(echo "$kv" | wc -w)" = 1 ] && [ "$(echo "$uv" | wc -w)" = 1 ]; }
lower_el_vector() { one_each && [ $((uv - kv)) = $((0x200)) ] && [ $((kv & 0x7ff)) = $((0x200)) ]; }
check "arm64 paging: one kernel vector ($kv) and one user vector ($uv)" one_each
check "arm64 paging: EL0's vector is VBAR_EL1 + 0x400, EL1's + 0x200" lower_el_vector
check "arm64 paging: EL0's exceptions: translation, permission write and read, two SVCs ($uinfo)" \
    [ "$uinfo" = "0x90000007 0x9000004f 0x9000000f 0x54000000 0x54000001 " ]
finish
