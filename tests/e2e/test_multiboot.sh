#!/bin/sh
# test_multiboot.sh — the multiboot v1 loader (docs/guest-abi.md, "Multiboot"): an i386 ELF
# kernel (tests/e2e/data/multiboot-info-x86.S) entered in 32-bit protected mode prints what it
# was handed: the magic, the information structure's flags, command line, module (--initrd),
# memory map, and its segments and CR0; the same lines as QEMU's -kernel gives where the two
# loaders agree (when qemu-system-x86_64 is installed).  The project's own x86 guest, made a
# 32-bit ELF (objcopy -O elf32-i386) and a flat binary, boots by its header's a.out addresses
# through its 32-bit trampoline into long mode.  Bad headers are refused naming the field; the
# run is the same bytes twice.
. "$(dirname "$0")/lib.sh" "$@"
cd "$T" || exit 1
as --32 -o mbi.o "$SRC/tests/e2e/data/multiboot-info-x86.S" && ld -m elf_i386 -Ttext=0x100000 -o mbi.elf mbi.o ||
    { echo "FAIL: cannot assemble the multiboot guest"; exit 1; }
printf 'the module bytes' >mod.bin

run mb --trace mb.trace --append "hello world" --initrd mod.bin mbi.elf
check "multiboot guest: exits through isa-debug-exit (status $(cat mb.status))" [ "$(cat mb.status)" = 1 ]
line() { grep -qx "$1" mb.out || fail "multiboot guest: no line '$1' in: $(tr '\n' '|' <mb.out)"; ok; }
line "eax=2badb002"
line "flags=0000024f"                   # memory, boot device, cmdline, modules, mmap, loader name
line "cmdline=mbi.elf hello world"      # QEMU's: the kernel's name, a space, -append
line "mods_count=00000001"
line "mod_string=mod.bin"
line "cs=00000008"
line "ds=00000010"
line "ss=00000010"
line "cr0=00000011"                     # PE and ET: protected mode, paging off
line "mmap base=00100000 length=07f00000 type=00000001"
line "mmap base=0009fc00 length=00060400 type=00000002"
line "mem_upper=0001fc00"               # 127 MiB from 1 MiB
line "loader=pmusim $(sed -n 's/^project(pmusim VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")"
start=$(field mod_start mb.out)
end=$(field mod_end mb.out)
check "module: page-aligned (flags bit 0), above the kernel ($start)" \
    [ $((0x$start % 4096)) = 0 ] && [ $((0x$start)) -ge $((0x100000)) ]
check "module: its 16 bytes ($start-$end)" [ $((0x$end - 0x$start)) = 16 ]
check "eflags: interrupts off" [ $((0x$(field eflags mb.out) & 0x200)) = 0 ]
check "trace: the CPU starts at the ELF's entry" \
    grep -q "cpu-start pc=0x$(readelf -h mbi.elf | sed -n 's/.*Entry point address: *0x//p')" mb.trace

run mb2 --trace mb2.trace --append "hello world" --initrd mod.bin mbi.elf
check "deterministic: the same console" cmp -s mb.out mb2.out
check "deterministic: the same trace" cmp -s mb.trace mb2.trace

# QEMU's -kernel, where the loaders agree (not the memory below 1 MiB, the map, the module's
# place: QEMU puts its information page between the kernel and the module)
if command -v qemu-system-x86_64 >/dev/null 2>&1; then
    timeout 60 qemu-system-x86_64 -kernel mbi.elf -append "hello world" -initrd mod.bin -display none \
        -serial file:qemu.out -device isa-debug-exit,iobase=0xf4,iosize=4 -no-reboot -m 128 >/dev/null 2>&1
    for k in eax flags cmdline mods_count mod_string cs ds ss cr0; do
        check "as QEMU's -kernel: $k ($(field "$k" qemu.out))" [ "$(grep "^$k=" mb.out)" = "$(grep "^$k=" qemu.out)" ]
    done
    check "as QEMU's -kernel: the module's size" \
        [ $((0x$(field mod_end qemu.out) - 0x$(field mod_start qemu.out))) = 16 ]
else
    echo "note: no qemu-system-x86_64: the comparison with QEMU's -kernel is skipped"
fi

# the project's own guest by its a.out kludge (flags bit 16): as a 32-bit ELF and as a flat file
HELLO=$GUESTS/x86_64/hello.elf
objcopy -O elf32-i386 "$HELLO" hello32.elf && objcopy -O binary "$HELLO" hello.bin
for img in hello32.elf hello.bin; do
    run "h-$img" --stats "$img"
    check "$img: the guest's 32-bit entry reaches long mode and exits (status $(cat "h-$img.status"))" \
        [ "$(cat "h-$img.status")" = 1 ]
    check "$img: it greets" grep -q "Hello from pmusim guest (x86_64)" "h-$img.out"
    check "$img: no DTB under multiboot" grep -q "dtb: none" "h-$img.out"
done

# bad headers: refused (status 2) naming the field and the offset
patch() {   # patch FILE OFFSET HEXBYTES: write the bytes at the offset (octal escapes: POSIX printf)
    _bytes=
    for _b in $(echo "$3" | sed 's/\(..\)/\1 /g'); do _bytes="$_bytes\\$(printf %03o "0x$_b")"; done
    printf "$_bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
hdr=$(grep -abo "$(printf '\002\260\255\033')" mbi.elf | head -n 1 | cut -d: -f1)
cp mbi.elf badsum.elf && patch badsum.elf $((hdr + 8)) 00000000
run badsum badsum.elf
check "bad checksum: status 2" [ "$(cat badsum.status)" = 2 ]
check "bad checksum: named with its offset ($(cat badsum.err))" \
    grep -q "badsum.elf: offset 0x$(printf %x $((hdr + 8))): multiboot checksum" badsum.err
cp mbi.elf badflags.elf && patch badflags.elf $((hdr + 4)) 03010000 && patch badflags.elf $((hdr + 8)) fb4e52e4
run badflags badflags.elf
check "an unknown requirement flag: status 2" [ "$(cat badflags.status)" = 2 ]
check "an unknown requirement flag: named ($(cat badflags.err))" grep -q "multiboot flags 0x00000103 require bits 0x100" badflags.err
cp mbi.elf nohdr.elf && patch nohdr.elf "$hdr" 00000000
run nohdr nohdr.elf
check "an i386 ELF without a header: status 2" [ "$(cat nohdr.status)" = 2 ]
check "an i386 ELF without a header: said ($(cat nohdr.err))" grep -q "nohdr.elf: no multiboot header" nohdr.err
head -c 4096 hello.bin >short.bin
hb=$(grep -abo "$(printf '\002\260\255\033')" hello.bin | head -n 1 | cut -d: -f1)
patch short.bin $((hb + 20)) 00001100                   # load_end_addr far past the file
run short short.bin
check "a.out addresses past the file: status 2" [ "$(cat short.status)" = 2 ]
check "a.out addresses past the file: load_end_addr named ($(cat short.err))" \
    grep -q "short.bin: offset 0x$(printf %x $((hb + 20))): multiboot load_end_addr 0x110000: past the end of the file" short.err
finish
