#!/bin/sh
# The pc board's ACPI tables and power path (docs/machines.md, "ACPI"): a guest of its own
# (tests/e2e/data/acpi-x86_64.S) finds the RSDP in the BIOS area, walks the XSDT, counts the
# MADT's CPUs and the MP table's, reads the PM timer, takes SLP_TYP from the DSDT's \_S5 and
# powers off through PM1a_CNT (the run ends with status 0, reason acpi-poweroff), or resets
# through the FADT's RESET_REG (reason system-reset).  The tables it printed are read again by
# ACPICA's disassembler (iasl -d, Debian's acpica-tools) and loaded by ACPICA itself (acpiexec,
# which evaluates \_S5) when they are installed.  The same run twice gives the same bytes; a
# tree without the PM node gets no tables; an image where they go is refused.
. "$(dirname "$0")/lib.sh" "$@"

DATA=$SRC/tests/e2e/data
asm_raw x86_64 "$DATA/acpi-x86_64.S" "$T/off.bin"
asm_raw x86_64 "$DATA/acpi-x86_64.S" "$T/reset.bin" --defsym RESET=1
raw="--arch x86_64 --load-addr 0x100000"

for n in 1 4; do
    run "$T/off$n" $raw --cpus $n --trace "$T/off$n.trace" "$T/off.bin"
    check "--cpus $n: powered off, status 0" [ "$(cat "$T/off$n.status")" = 0 ]
    check "--cpus $n: the exit is the PM1a_CNT write" grep -q "exit status=0 reason=acpi-poweroff" "$T/off$n.trace"
    check "--cpus $n: the MADT has $n CPUs and the board's I/O APIC, the MP table $n CPUs" \
        [ "$(head -n 1 "$T/off$n.out")" = "cpus=$n ioapic=1 mp=$n" ]
done
run "$T/again4" $raw --cpus 4 --trace "$T/again4.trace" "$T/off.bin"
check "deterministic: the same console (the tables' bytes) twice" cmp -s "$T/off4.out" "$T/again4.out"
check "deterministic: the same trace twice" cmp -s "$T/off4.trace" "$T/again4.trace"

run "$T/reset" $raw --trace "$T/reset.trace" "$T/reset.bin"
check "reset: status 0" [ "$(cat "$T/reset.status")" = 0 ]
check "reset: through the reset control register" grep -q "exit status=0 reason=system-reset" "$T/reset.trace"

# The guest printed RSDP, XSDT, FADT, MADT, DSDT, FACS in hex, one a line.
check "six tables printed" [ "$(tail -n +2 "$T/off4.out" | wc -l)" = 6 ]
if command -v iasl >/dev/null 2>&1; then
    i=0
    tail -n +2 "$T/off4.out" | while read -r hex; do
        i=$((i + 1))
        echo "$hex" | python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' \
            >"$T/table$i.dat"
    done
    for i in 2 3 4 5 6; do                      # iasl has no RSDP reader: the guest checked it
        (cd "$T" && iasl -d "table$i.dat" >"table$i.iasl" 2>&1)
        check "iasl -d reads table $i" [ -s "$T/table$i.dsl" ]
        check "iasl -d: no complaint about table $i" \
            sh -c "! grep -qi 'error\|warning\|incorrect\|invalid' '$T/table$i.iasl' '$T/table$i.dsl'"
    done
    check "iasl: XSDT names two tables" [ "$(grep -c 'ACPI Table Address' "$T/table2.dsl")" = 2 ]
    for f in "PM1A Event Block Address : 00000600" "PM1A Control Block Address : 00000604" \
             "PM Timer Block Address : 00000608" "SCI Interrupt : 0009" "32-bit PM Timer (V1) : 1" \
             "Reset Register Supported (V2) : 1" "Address : 0000000000000CF9" "Value to cause reset : 06" \
             "8042 Present on ports 60/64 (V2) : 0" "Hardware Reduced (V5) : 0"; do
        check "iasl: FADT $f" grep -q "$f" "$T/table3.dsl"
    done
    check "iasl: MADT has 4 local APICs" [ "$(grep -c 'Subtable Type : 00 \[Processor Local APIC\]' "$T/table4.dsl")" = 4 ]
    check "iasl: MADT has the LINT1 NMI" grep -q "Interrupt Input LINT : 01" "$T/table4.dsl"
    check "iasl: DSDT defines _S5" grep -q "Name (_S5, Package (0x04)" "$T/table5.dsl"
    check "iasl: FACS" grep -q 'Signature : "FACS"' "$T/table6.dsl"
    # ACPICA itself (the code Linux runs, in Debian's acpiexec) loads FADT, MADT, DSDT and FACS,
    # builds the namespace and evaluates \_S5 as acpi_power_off does.
    (cd "$T" && timeout 60 acpiexec -b 'evaluate \_S5' table3.dat table4.dat table5.dat table6.dat) \
        >"$T/acpiexec.out" 2>&1
    grep -v aetests "$T/acpiexec.out" >"$T/acpiexec.own"   # its own GPE self-tests: no GPE block here
    check "acpiexec: the DSDT loads" grep -q "1 ACPI AML tables successfully acquired and loaded" "$T/acpiexec.own"
    check "acpiexec: \_S5 is a package of 4" grep -q "Package\] Contains 4 Elements" "$T/acpiexec.own"
    check "acpiexec: SLP_TYPa 7" grep -q "Integer\] = 0000000000000007" "$T/acpiexec.own"
    check "acpiexec: no error or warning" sh -c "! grep -qi 'error\|warning' '$T/acpiexec.own'"
else
    echo "note: iasl not installed (Debian acpica-tools; sh scripts/install-deps.sh installs it): tables not disassembled"
fi

# A tree without the PM node (the 2 MiB board of tests/e2e/data) gets no tables: no RSDP
# (debug-exit 1, status 3), and its DTB has no reservation for them.
run "$T/none" --machine "$DATA/x86-2mib.dtb" $raw "$T/off.bin"
check "no PM node: no RSDP found" [ "$(cat "$T/none.status")" = 3 ]
run "$T/none-dtb" --machine "$DATA/x86-2mib.dtb" --arch x86_64 --dump-dtb
check "no PM node: nothing reserved at 0xe0000" sh -c "! grep -q 0x00000000000e0000 '$T/none-dtb.out'"
run "$T/board-dtb" --arch x86_64 --dump-dtb
check "the board reserves the tables' pages at 0xe0000" grep -q "memreserve/.*0x00000000000e0000 0x00000000000[0-9a-f]*000;" "$T/board-dtb.out"

# An image loaded where the tables go is refused.
run "$T/clash" --arch x86_64 --load-addr 0xf0000 "$T/off.bin"
check "image in the BIOS area: refused (status 2)" [ "$(cat "$T/clash.status")" = 2 ]
check "image in the BIOS area: says so" grep -q "ACPI tables.*0xe0000-0x[0-9a-f]*fff, where the image" "$T/clash.err"

finish
