#!/bin/sh
# test_linux_x86_syms.sh — an x86 bzImage's symbols from the kernel's own kallsyms tables, inside
# its compressed payload (base/bzpayload.c unpacks it, base/kallsyms.c reads the ELF inside;
# docs/guest-abi.md "Booting Linux", x86): --dump-symbols prints them as a System.map; the same
# kernel repacked with gzip, xz and lzma gives the same symbols; a corrupt, truncated, misplaced
# or unread payload is refused naming the file and the payload's offset; under KASLR the
# running kernel's offset is followed (the --max-insns PC report names kernel functions where
# they run, at a 2 MiB multiple, not 0), and with `nokaslr` the offset is 0.  Needs the kernel
# (need_linux_image amd64).
# The reference: Debian's package ships a placeholder System.map (the real one is in the -dbg
# package), so the booted kernel's own /proc/kallsyms is, read by a tiny init
# (data/kallsyms-init.c) as QEMU boots it with `nokaslr`: it must be the dump line for line
# (skipped without qemu-system-x86_64).  That KASLR's offset is the one the kernel picked is
# checked against its own "Kernel Offset:" line by test_linux_x86_boot (it boots to the panic).
# the scratch directory in the build tree: unpacked and repacked kernels are tens of MB
TMPDIR=$(cd "$1" && pwd)
export TMPDIR
. "$(dirname "$0")/lib.sh" "$@"
need_linux_image amd64
IMAGE=$LINUX_IMAGE
INSNS=1500000000

# addr NAME MAP: the address of NAME in a System.map
addr() {
    awk -v n="$1" '$3 == n { print $1; exit }' "$2"
}

run "$T/a" --dump-symbols --kernel "$IMAGE"
check "dump: status 0 ($(head -c 300 "$T/a.err"))" [ "$(cat "$T/a.status")" = 0 ]
check "dump: more than 100000 symbols" [ "$(wc -l <"$T/a.out")" -gt 100000 ]
check "dump: System.map lines" sh -c "! grep -qv '^[0-9a-f]\{16\} [!-~] [!-~]*\$' '$T/a.out'"
check "dump: in address order" sort -c -s -k1,1 "$T/a.out"
for s in start_kernel calibrate_delay; do
    check "dump: $s is a global function" grep -q "^ffffffff8[0-9a-f]* T $s\$" "$T/a.out"
done
check "dump: _text at the link address (0xffffffff81000000)" [ "$(addr _text "$T/a.out")" = ffffffff81000000 ]
# CONFIG_KALLSYMS_ABSOLUTE_PERCPU: the per-CPU symbols are absolute ('A'), from 0
check "dump: head_64.S's common_startup_64, local" grep -q "^ffffffff8[0-9a-f]* t common_startup_64$" "$T/a.out"
check "dump: per-CPU symbols absolute, from 0" grep -q "^0000000000000000 A __per_cpu_start\$" "$T/a.out"
for s in mcount_loc __jump_table; do
    start=$(addr "__start_$s" "$T/a.out")
    stop=$(addr "__stop_$s" "$T/a.out")
    check "dump: __start_$s and __stop_$s" [ -n "$start" ] && [ -n "$stop" ] && [ "$start" \< "$stop" ]
done
run "$T/b" --dump-symbols --kernel "$IMAGE"
check "dump: the same twice" cmp -s "$T/a.out" "$T/b.out"

# The payload: payload_offset (0x248) after the protected-mode kernel ((setup_sects + 1) * 512),
# payload_length (0x24c) bytes, a zstd frame and the unpacked size (scripts/Makefile.lib
# size_append).  u32 OFFSET FILE: a little-endian word of the file.
u32() {
    od -An -tu4 -j "$1" -N4 "$2" | tr -d ' '
}
sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$IMAGE" | tr -d ' ')
[ "$sects" = 0 ] && sects=4
PAY=$((($sects + 1) * 512 + $(u32 $((0x248)) "$IMAGE")))
LEN=$(u32 $((0x24c)) "$IMAGE")
SIZE=$(wc -c <"$IMAGE")
# put_u32 FILE OFFSET VALUE: write a little-endian word into FILE
put_u32() {
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($3 & 255)) $(($3 >> 8 & 255)) $(($3 >> 16 & 255)) \
        $(($3 >> 24 & 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# a corrupt stream: 64 bytes of the middle of the payload zeroed
cp "$IMAGE" "$T/corrupt"
dd if=/dev/zero of="$T/corrupt" bs=1 seek=$((PAY + LEN / 2)) count=64 conv=notrunc 2>/dev/null
run "$T/c" --dump-symbols --kernel "$T/corrupt"
check "corrupt payload: status 2" [ "$(cat "$T/c.status")" = 2 ]
check "corrupt payload: names the file, the payload's offset and zstd" \
    grep -q "corrupt: payload at offset $(printf '0x%x' $PAY): the zstd stream is" "$T/c.err"
# a truncated stream: payload_length halved
cp "$IMAGE" "$T/short"
put_u32 "$T/short" $((0x24c)) $((LEN / 2))
run "$T/s" --dump-symbols --kernel "$T/short"
check "truncated payload: status 2" [ "$(cat "$T/s.status")" = 2 ]
check "truncated payload: says truncated" grep -q "short: payload at offset .*: the zstd stream is truncated" "$T/s.err"
# payload_length past the end of the file
cp "$IMAGE" "$T/past"
put_u32 "$T/past" $((0x24c)) $((SIZE))
run "$T/p" --dump-symbols --kernel "$T/past"
check "payload past the file: names the field" grep -q "past: offset 0x248: the payload .* is not inside the file" "$T/p.err"
# a compressor pmusim does not read, named by its magic
cp "$IMAGE" "$T/bz2"
printf 'BZh9' | dd of="$T/bz2" bs=1 seek=$PAY conv=notrunc 2>/dev/null
run "$T/z" --dump-symbols --kernel "$T/bz2"
check "bzip2 payload: named, refused" grep -q "bz2: payload at offset .*: a bzip2 payload: pmusim reads" "$T/z.err"

# The same kernel repacked with gzip, xz and lzma (the payload's bytes replaced, its length set):
# the same symbols
if command -v zstd >/dev/null && command -v xz >/dev/null; then
    tail -c +$((PAY + 1)) "$IMAGE" | head -c $((LEN - 4)) | zstd -dc >"$T/vmlinux.bin"
    check "zstd: the payload unpacks" [ -s "$T/vmlinux.bin" ]
    for name in gzip xz lzma; do
        case $name in
        gzip) c="gzip -1 -c" ;;
        xz) c="xz -0 --check=crc32 -c" ;;     # scripts/xz_wrap.sh: --check=crc32
        lzma) c="xz -0 --format=lzma -c" ;;
        esac
        $c "$T/vmlinux.bin" >"$T/pay.$name"
        head -c $PAY "$IMAGE" >"$T/k.$name"
        cat "$T/pay.$name" >>"$T/k.$name"
        put_u32 "$T/k.$name" $((0x24c)) "$(wc -c <"$T/pay.$name")"
        run "$T/r.$name" --dump-symbols --kernel "$T/k.$name"
        check "$name payload: the same symbols ($(head -c 200 "$T/r.$name.err"))" cmp -s "$T/a.out" "$T/r.$name.out"
        rm -f "$T/pay.$name" "$T/k.$name" "$T/r.$name.out"
    done
    rm -f "$T/vmlinux.bin"
else
    echo "note: no zstd or xz: the gzip, xz and lzma payloads not tried"
fi

# KASLR: the PC report's <NAME+OFF> is pc = NAME's dump address + OFF + the kernel's offset,
# a kernel_alignment (0x200000) multiple below 1 GiB: not 0 under KASLR, 0 with nokaslr; NAME a
# function.  offset RUN: that offset (or why not) from RUN.err and the dump (data/kaslr_offset.py).
offset() {
    python3 "$SRC/tests/e2e/data/kaslr_offset.py" "$1.err" "$T/a.out"
}
run "$T/k" run --kernel "$IMAGE" --append "console=ttyS0" --max-insns $INSNS
check "KASLR: stopped by --max-insns" [ "$(cat "$T/k.status")" = 3 ]
off=$(offset "$T/k")
check "KASLR: the PC named where the kernel runs ($(grep 'cpu0: pc' "$T/k.err"): offset $off)" \
    sh -c "echo '$off' | grep -q '^0x' && [ '$off' != 0x0 ]"
run "$T/k2" run --kernel "$IMAGE" --append "console=ttyS0" --max-insns $INSNS
check "KASLR: the same report twice" cmp -s "$T/k.err" "$T/k2.err"
run "$T/n" run --kernel "$IMAGE" --append "console=ttyS0 nokaslr" --max-insns $INSNS
off=$(offset "$T/n")
check "nokaslr: the PC named at the link address ($(grep 'cpu0: pc' "$T/n.err"): offset $off)" [ "$off" = 0x0 ]

# /proc/kallsyms of the booted kernel (QEMU, nokaslr): the same lines, in the same order
if ! command -v qemu-system-x86_64 >/dev/null; then
    echo "note: no qemu-system-x86_64: /proc/kallsyms not compared"
    finish
fi
gcc -O1 -static -nostdlib -ffreestanding -fno-stack-protector -fno-pie -no-pie -o "$T/init" \
    "$SRC/tests/e2e/data/kallsyms-init.c"
init_cpio "$T/init" "$T/initrd.cpio"
# loglevel=1: no kernel message between the lines (e.g. "random: crng init done")
timeout -k 10 600 qemu-system-x86_64 -m 1G -nographic -no-reboot -kernel "$IMAGE" -initrd "$T/initrd.cpio" \
    -append "console=ttyS0 nokaslr loglevel=1 rdinit=/init" </dev/null >"$T/q.out" 2>&1
tr -d '\r' <"$T/q.out" | sed -n '/^KSTART$/,/^KEND$/p' | sed '1d;$d' >"$T/proc_kallsyms"
check "QEMU boot: /proc/kallsyms read" [ "$(wc -l <"$T/proc_kallsyms")" -gt 100000 ]
check "QEMU boot: no module symbols (none loaded)" sh -c "! grep -q '\[' '$T/proc_kallsyms'"
check "QEMU boot: /proc/kallsyms is the dump, line for line" cmp -s "$T/proc_kallsyms" "$T/a.out"
finish
