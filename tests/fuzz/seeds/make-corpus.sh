#!/bin/sh
# make-corpus.sh — rebuilds the committed seed inputs in tests/fuzz/corpus/{elf,dtb,dts,machine,acpi}
# from the sources beside this script (the report and cli seeds are text, edited by hand).  Needs
# binutils (x86_64 and powerpc-linux-gnu) and dtc.  Run from anywhere; commit what changes.
#
# The dtb, dts and machine inputs start with the 5-byte option header of tests/fuzz/fuzz.h:
# architecture, --cpus, --cpu-model index, flags, quantum / 1000.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../corpus
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

as --64 -o "$t/x.o" "$here/elf-x86_64.S"
ld -N -Ttext=0x100000 -e _start -o "$corpus/elf/toolchain-x86_64.elf" "$t/x.o" 2>/dev/null
strip --strip-debug "$corpus/elf/toolchain-x86_64.elf"
powerpc-linux-gnu-as -o "$t/p.o" "$here/elf-ppc32.S"
powerpc-linux-gnu-ld -N -Ttext=0x100000 -e _start -o "$corpus/elf/toolchain-ppc32.elf" "$t/p.o" 2>/dev/null
powerpc-linux-gnu-strip --strip-debug "$corpus/elf/toolchain-ppc32.elf"

# seed NAME ARCH CPUS MODEL FLAGS QUANTUM_K FILE DIR
seed() {
    printf "\\$(printf %o "$2")\\$(printf %o "$3")\\$(printf %o "$4")\\$(printf %o "$5")\\$(printf %o "$6")" >"$8/$1"
    cat "$7" >>"$8/$1"
}
for s in arm64-spin x86_64-min ppc32-isa x86_64-acpi; do
    dtc -q -I dts -O dtb -o "$t/$s.dtb" "$here/$s.dts"
done
# flags: 1 bootargs, 2 check-patching, 4 icache=strict, 8 no kernel, 16 run, 32 guest-trace, 64 samples
seed arm64-spin 1 0 0 16 5 "$t/arm64-spin.dtb" "$corpus/dtb"
seed x86_64-min-bootargs 0 0 0 1 0 "$t/x86_64-min.dtb" "$corpus/dtb"
seed ppc32-isa 2 0 0 0 0 "$t/ppc32-isa.dtb" "$corpus/dtb"
# acpi: the quantum byte is the area size in 512-byte units (0: the BIOS area's 128 KiB)
seed x86_64-acpi 0 0 0 0 0 "$t/x86_64-acpi.dtb" "$corpus/acpi"
seed x86_64-acpi-4cpus-small-area 0 4 0 0 8 "$t/x86_64-acpi.dtb" "$corpus/acpi"
seed x86_64-acpi-no-room-for-mp 0 0 0 0 128 "$t/x86_64-acpi.dtb" "$corpus/acpi"
seed arm64-spin-run 1 0 0 22 5 "$t/arm64-spin.dtb" "$corpus/machine"
seed x86_64-min-run 0 0 0 50 2 "$t/x86_64-min.dtb" "$corpus/machine"
seed ppc32-isa-run 2 0 7 81 3 "$t/ppc32-isa.dtb" "$corpus/machine"
seed arm64-spin.dts 1 0 0 0 0 "$here/arm64-spin.dts" "$corpus/dts"
seed x86_64-min.dts 0 0 2 1 0 "$here/x86_64-min.dts" "$corpus/dts"
seed ppc32-isa.dts 2 0 0 0 0 "$here/ppc32-isa.dts" "$corpus/dts"
