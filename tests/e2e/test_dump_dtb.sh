#!/bin/sh
# --dump-dtb prints the effective machine (options applied) as DTS; that DTS given back with
# --machine describes the same machine.
. "$(dirname "$0")/lib.sh" "$@"

run "$T/a" --dump-dtb --arch arm64 --cpus 2 --cpu-model cortex-a72 --bootargs "a b=c"
check "arm64 dump: status 0" [ "$(cat "$T/a.status")" = 0 ]
check "arm64 dump: second cpu" grep -q "cpu@1 {" "$T/a.out"
check "arm64 dump: psci enable method" grep -q 'enable-method = "psci"' "$T/a.out"
check "arm64 dump: cpu model" grep -q 'compatible = "arm,cortex-a72"' "$T/a.out"
check "arm64 dump: bootargs" grep -q 'bootargs = "a b=c"' "$T/a.out"
check "arm64 dump: the DTB is reserved" grep -q "/memreserve/.*0x0000000040000000" "$T/a.out"

run "$T/x" --dump-dtb --cpus 3 "$GUESTS/x86_64/hello.elf"
check "x86 dump from an ELF: status 0" [ "$(cat "$T/x.status")" = 0 ]
check "x86 dump: spin-table release word of cpu 2" grep -q "cpu-release-addr = <0x00 0xf010>" "$T/x.out"

run "$T/p" --dump-dtb --arch ppc32 --cpu-model mpc7447a
check "ppc32 dump: node named after the CPU" grep -q "PowerPC,7447A@0 {" "$T/p.out"

for a in $ARCHES; do
    run "$T/$a-dump" --dump-dtb --cpus 2 --bootargs "round trip" "$GUESTS/$a/hello.elf"
    cp "$T/$a-dump.out" "$T/$a.dts"
    run "$T/$a-direct" --cpus 2 --bootargs "round trip" "$GUESTS/$a/hello.elf"
    run "$T/$a-via" --machine "$T/$a.dts" "$GUESTS/$a/hello.elf"
    check "$a: the dumped tree runs the guest identically" cmp -s "$T/$a-direct.out" "$T/$a-via.out"
    check "$a: and the guest saw the bootargs" grep -q "bootargs: round trip" "$T/$a-via.out"
done
finish
