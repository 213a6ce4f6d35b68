#!/bin/sh
# QEMU-virt image compatibility (issue 13, item 7): every image of guest/virt (a raw arm64 Image
# that takes the DTB from x0, uses PSCI over HVC and the PL011, built as
# build/guest/arm64/virt-NAME.bin) runs on pmusim's arm64 board unchanged and prints the same
# console lines as under `qemu-system-aarch64 -M virt -cpu cortex-a57 -nographic -kernel IMG`,
# with QEMU's default RAM (128 MiB: pmusim --mem 128M) and with pmusim's (1 GiB: QEMU -m 1G).
# An image's settings are comment lines of its source (guest/virt/README.md):
#   virt-cpus: N          -smp N / --cpus N (default 1)
#   virt-bootargs: TEXT   -append TEXT / --bootargs TEXT
#   virt-initrd: yes      -initrd / --initrd with $T/initrd (seq 1 40000), whose cksum(1) the
#                         image must print as "initrd: cksum CRC LENGTH"
# Without qemu-system-aarch64 the images still run under pmusim and must pass their own checks;
# the comparison is skipped, with a message.
. "$(dirname "$0")/lib.sh" "$@"

QEMU=${QEMU_SYSTEM_AARCH64:-qemu-system-aarch64}
have_qemu=false
command -v "$QEMU" >/dev/null 2>&1 && have_qemu=true
seq 1 40000 >"$T/initrd"
initrd_cksum=$(cksum <"$T/initrd")

# setting NAME KEY: the image's "virt-KEY: value" comment line
setting() {
    sed -n "s/^ \\* virt-$2: //p" "$SRC/guest/virt/$1.c" | head -n 1
}

# on_pmusim OUT MEM IMG CPUS BOOTARGS INITRD: MEM empty for the board's own
on_pmusim() {
    _out=$1 _mem=$2 _img=$3 _cpus=$4 _args=$5 _initrd=$6
    set -- run --arch arm64 --load-addr 0x40080000 --cpus "$_cpus"
    [ -n "$_mem" ] && set -- "$@" --mem "$_mem"
    [ -n "$_args" ] && set -- "$@" --bootargs "$_args"
    [ "$_initrd" = yes ] && set -- "$@" --initrd "$T/initrd"
    run "$_out" "$@" "$_img"
}

# on_qemu OUT MEM IMG CPUS BOOTARGS INITRD: MEM empty for QEMU's own
on_qemu() {
    _out=$1 _mem=$2 _img=$3 _cpus=$4 _args=$5 _initrd=$6
    set -- -M virt -cpu cortex-a57 -nographic -smp "$_cpus" -kernel "$_img"
    [ -n "$_mem" ] && set -- "$@" -m "$_mem"
    [ -n "$_args" ] && set -- "$@" -append "$_args"
    [ "$_initrd" = yes ] && set -- "$@" -initrd "$T/initrd"
    timeout -k 5 60 "$QEMU" "$@" </dev/null >"$_out.out" 2>"$_out.err"
    echo $? >"$_out.status"
}

# passed OUT NAME: the image's own checks all passed
passed() {
    grep -q "^$2: all [0-9]* checks passed\$" "$1.out" && ! grep -q "FAIL" "$1.out"
}

images=$(cd "$GUESTS/arm64" && ls virt-*.bin 2>/dev/null | sed 's/^virt-//; s/\.bin$//')
check "images built: $(echo $images)" [ -n "$images" ]
for name in $images; do
    check "$name: a source guest/virt/$name.c" [ -f "$SRC/guest/virt/$name.c" ]
    img=$GUESTS/arm64/virt-$name.bin
    cpus=$(setting "$name" cpus)
    args=$(setting "$name" bootargs)
    initrd=$(setting "$name" initrd)
    for ram in qemu pmusim; do          # whose default RAM: the other one is told
        if [ $ram = qemu ]; then pmem=128M qmem=; else pmem= qmem=1G; fi
        p=$T/$name.$ram.pmusim
        on_pmusim "$p" "$pmem" "$img" "${cpus:-1}" "$args" "$initrd"
        check "$name ($ram RAM): pmusim exit status 0, got $(cat "$p.status")" [ "$(cat "$p.status")" = 0 ]
        check "$name ($ram RAM): its checks passed under pmusim" passed "$p" "virt-$name"
        [ "$initrd" = yes ] && check "$name ($ram RAM): the initrd's cksum, $initrd_cksum" \
            grep -q "^initrd: cksum $initrd_cksum\$" "$p.out"
        $have_qemu || continue
        q=$T/$name.$ram.qemu
        on_qemu "$q" "$qmem" "$img" "${cpus:-1}" "$args" "$initrd"
        check "$name ($ram RAM): QEMU exit status 0, got $(cat "$q.status")" [ "$(cat "$q.status")" = 0 ]
        check "$name ($ram RAM): its checks passed under QEMU" passed "$q" "virt-$name"
        if ! cmp -s "$q.out" "$p.out"; then
            fail "$name ($ram RAM): pmusim's console differs from QEMU's"
            diff "$q.out" "$p.out" | sed 's/^/    /'
        else
            ok
        fi
    done
done

# An arm64 Image header's image_size moves the DTB (and the initrd) above the whole image: the
# dtb image told it takes 200 MiB (0x0c800000) gets x0 at the first 2 MiB boundary above
# 0x40080000 + 200 MiB.  QEMU places by the file's size, not image_size: pmusim only.
if [ -f "$GUESTS/arm64/virt-dtb.bin" ]; then
    cp "$GUESTS/arm64/virt-dtb.bin" "$T/big.bin"
    printf '\000\000\200\014\000\000\000\000' | dd of="$T/big.bin" bs=1 seek=16 conv=notrunc 2>/dev/null
    run "$T/big" run --arch arm64 --load-addr 0x40080000 "$T/big.bin"
    check "image_size 200 MiB: status 0" [ "$(cat "$T/big.status")" = 0 ]
    check "image_size 200 MiB: x0 = 0x4ca00000" grep -q "^x0 = 0x4ca00000\$" "$T/big.out"
    check "image_size 200 MiB: the image's checks passed" passed "$T/big" virt-dtb
fi

if ! $have_qemu && [ "$FAILS" = 0 ]; then
    echo "$(basename "$0"): $CHECKS checks passed under pmusim; $QEMU is not installed, so nothing was" \
         "compared with QEMU (Debian: apt-get install qemu-system-arm): skipped"
    exit 77
fi
finish
