#!/bin/sh
# build-blob.sh ARCH SRC.s OUT.bin LOAD_ADDR — assemble a unit-test fixture into a raw binary.
set -eu
arch=$1 src=$2 out=$3 load=$4
case $arch in
    x86_64) P= ; AS="as --64" ;;
    arm64)  P=aarch64-linux-gnu- ; AS="${P}as" ;;
    ppc32)  P=powerpc-linux-gnu- ; AS="${P}as -mregnames -a32 -mbig" ;;
    *) echo "build-blob.sh: unknown arch $arch" >&2; exit 1 ;;
esac
tmp=$out.tmp
$AS -I "$(dirname "$src")" -o "$tmp.o" "$src"
${P}ld -nostdlib -N -Ttext="$load" -e _start --no-warn-rwx-segments -o "$tmp.elf" "$tmp.o"
${P}objcopy -O binary -j .text "$tmp.elf" "$out"
rm -f "$tmp.o" "$tmp.elf"
