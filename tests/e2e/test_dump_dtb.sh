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
check "arm64 dump: 1 GiB of RAM" grep -q "reg = <0x00 0x40000000 0x00 0x40000000>;" "$T/a.out"
check "arm64 dump: the DTB is reserved, at RAM base + 128 MiB" \
    grep -q "/memreserve/.*0x0000000048000000 0x0000000000010000" "$T/a.out"

# --mem and --initrd: the memory node's size; the initrd at RAM base + min(RAM / 2, 128 MiB) in
# /chosen (the root's two address cells), the DTB at the next 2 MiB boundary above it
head -c 3000000 /dev/zero >"$T/initrd"
run "$T/m" --dump-dtb --arch arm64 --mem 256M --initrd "$T/initrd"
check "arm64 --mem 256M: status 0" [ "$(cat "$T/m.status")" = 0 ]
check "arm64 --mem 256M: the memory node" grep -q "reg = <0x00 0x40000000 0x00 0x10000000>;" "$T/m.out"
check "arm64 --initrd: start" grep -q "linux,initrd-start = <0x00 0x48000000>;" "$T/m.out"
check "arm64 --initrd: end" grep -q "linux,initrd-end = <0x00 0x482dc6c0>;" "$T/m.out"
check "arm64 --initrd: the DTB above it" grep -q "/memreserve/.*0x0000000048400000 0x0000000000010000" "$T/m.out"
run "$T/m2" --dump-dtb --arch arm64 --mem 0x2000000
check "arm64 --mem 32 MiB: the DTB at RAM base + 16 MiB" grep -q "/memreserve/.*0x0000000041000000 " "$T/m2.out"
run "$T/mx" --dump-dtb --arch x86_64 --mem 1G --initrd "$T/initrd"
check "x86_64 --mem 1G" grep -q "reg = <0x00 0x00 0x00 0x40000000>;" "$T/mx.out"
check "x86_64 --initrd at 128 MiB" grep -q "linux,initrd-start = <0x00 0x8000000>;" "$T/mx.out"
check "x86_64: the DTB stays at 0x10000" grep -q "/memreserve/.*0x0000000000010000 0x0000000000010000" "$T/mx.out"
run "$T/mp" --dump-dtb --arch ppc32 --mem 64M --initrd "$T/initrd"
check "ppc32 --mem 64M" grep -q "reg = <0x00 0x4000000>;" "$T/mp.out"
check "ppc32 --initrd at 32 MiB, one address cell" grep -q "linux,initrd-end = <0x22dc6c0>;" "$T/mp.out"

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
