#!/bin/sh
# Bad input never crashes pmusim: each gets one clear message naming the file (and offset, for
# binary formats) or the option, and exit status 2.
. "$(dirname "$0")/lib.sh" "$@"

hello=$GUESTS/x86_64/hello.elf
expect_bad() {      # expect_bad NAME PATTERN ARGS...
    name=$1 pattern=$2
    shift 2
    run "$T/$name" "$@"
    check "$name: exit status $(cat "$T/$name.status"), expected 2" [ "$(cat "$T/$name.status")" = 2 ]
    check "$name: message matches '$pattern'" grep -q -- "$pattern" "$T/$name.err"
    [ "$name" = noarg ] ||      # (the usage text instead)
        check "$name: exactly one pmusim message" [ "$(grep -c '^pmusim' "$T/$name.err")" = 1 ]
}

head -c 100 "$hello" >"$T/trunc.elf"
head -c 3000 /dev/zero | tr '\0' 'x' >"$T/junk.elf"
printf '/dts-v1/;\n/ { oops\n' >"$T/broken.dts"
"$PMUSIM" --dump-dtb --arch x86_64 >/dev/null 2>&1
dtc -q -I dts -O dtb -o "$T/board.dtb" "$SRC/sim/boards/x86_64.dts"
head -c 200 "$T/board.dtb" >"$T/trunc.dtb"

expect_bad missing "/no/such/guest.elf" /no/such/guest.elf
expect_bad truncated "trunc.elf: offset" "$T/trunc.elf"
expect_bad junk "junk.elf: offset 0: not an ELF file" "$T/junk.elf"
expect_bad wrongarch "is a x86_64 image\\|a x86_64 image, but --arch arm64" --arch arm64 "$hello"
expect_bad brokendts "broken.dts" --machine "$T/broken.dts" "$hello"
expect_bad truncdtb "trunc.dtb: malformed device tree blob" --machine "$T/trunc.dtb" "$hello"
expect_bad archtree "describes a arm64 machine" --machine "$SRC/sim/boards/arm64.dts" "$hello"
expect_bad cpus0 "--cpus 0" --cpus 0 "$hello"
expect_bad cpus99 "--cpus 99" --cpus 99 "$hello"
expect_bad cpusabc "--cpus abc" --cpus abc "$hello"
expect_bad maxinsns "--max-insns x" --max-insns x "$hello"
expect_bad unknown "unknown option --frobnicate" --frobnicate "$hello"
expect_bad rawnoarch "--load-addr needs --arch" --load-addr 0x100000 "$T/junk.elf"
expect_bad saveat "--save-at 12" --save-at 12 "$hello"
expect_bad tracefile "/no/such/dir/t.trace" --trace /no/such/dir/t.trace "$hello"
expect_bad model "--cpu-model cortex-a99" --cpu-model cortex-a99 "$GUESTS/arm64/hello.elf"
# Linux kernel images (--kernel): an arm64 Image header (booting.rst) that asks for more memory
# than the board has, one cut inside its header, and a gzip stream cut short.
a64img() {          # a64img FILE IMAGE_SIZE: a 4 KiB Image whose header claims IMAGE_SIZE bytes
    python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<IIQQQQQQII',0x14000010,0,0,$2,0xa,0,0,0,0x644d5241,0)+bytes(4032))" >"$1"
}
a64img "$T/big.Image" 0x10000000
a64img "$T/ok.Image" 0x100000
head -c 40 "$T/ok.Image" >"$T/cut.Image"
gzip -n -c "$T/ok.Image" | head -c 30 >"$T/cut.Image.gz"
expect_bad kbig "big.Image: the kernel needs 0x10000000 bytes.*too big for memory" --mem 64M --kernel "$T/big.Image"
expect_bad kcut "cut.Image: offset 0: not an ELF file" --kernel "$T/cut.Image"
expect_bad kgz "cut.Image.gz: offset 0x[0-9a-f]*: gzip stream is truncated" --kernel "$T/cut.Image.gz"
expect_bad karch "a arm64 image, but --arch x86_64" --arch x86_64 --kernel "$T/ok.Image"
expect_bad kgic "--gic-version 4" --gic-version 4 --kernel "$T/ok.Image"
# --rtc-base: an ISO date in UTC that exists, from 1970 (the x86 board's CMOS clock at cycle 0)
for d in 2023-02-29 1969-12-31 2025-13-01 2025-01-01T24:00:00 2025-1-1 "2025-01-01 00:00:00"; do
    expect_bad "rtc$d" "--rtc-base $d: expected a date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS" --rtc-base "$d" --kernel "$T/ok.Image"
done
expect_bad noarg "usage" 
expect_bad twokernels "more than one KERNEL" "$hello" "$hello"

# Machine files and trees (issue 10: 2, 3, 7, 15).  Checks of what used to hang or exhaust the
# host run pmusim under `timeout 20`.
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$PMUSIM" >"$T/pmusim-20s"
chmod +x "$T/pmusim-20s"
expect_bad_20s() {      # expect_bad_20s NAME PATTERN ARGS...: expect_bad, pmusim bounded to 20 s
    _pmusim=$PMUSIM
    PMUSIM=$T/pmusim-20s
    expect_bad "$@"
    PMUSIM=$_pmusim
}
board=$SRC/sim/boards/x86_64.dts
arm64=$GUESTS/arm64/hello.elf
sed 's/#address-cells = <1>;/#address-cells = <3>;/; s/reg = <0x0>;/reg = <0 0 0>;/' "$board" >"$T/cells3.dts"
sed 's/#address-cells = <1>;/#address-cells = <0x40000001>;/' "$board" >"$T/cellshuge.dts"
sed 's/"pmusim,isa-debug-exit"/"arm,psci-1.0"/' "$board" >"$T/isapsci.dts"
sed 's/reg = <0x0 0x0 0x0 0x8000000>;/reg = <0x0 0x10 0x0 0x8000000>;/' "$board" >"$T/memmis.dts"
sed 's/reg = <0x0 0x09000000 0x0 0x1000>;/reg = <0x0 0x40001000 0x0 0x1000>;/' "$SRC/sim/boards/arm64.dts" \
    >"$T/plram.dts"
sed 's/reg = <0x0 0x0 0x0 0x8000000>;/reg = <0x0 0x0 0x0 0x8000000 0x1 0x0 0x1000 0x0>;/' "$board" >"$T/ram16t.dts"
awk '{ print } /^\/ \{/ && !done { printf "\tbig = ["; for (i = 0; i < 70000; i++) printf "00 "; print "];"; done = 1 }' \
    "$board" >"$T/bigdtb.dts"
mkfifo "$T/fifo"
head -c 1048577 /dev/zero | tr '\0' ' ' >"$T/big.dts"
expect_bad_20s cells3 "cells3.dts: node /cpus: property #address-cells: 3 is not supported" \
    --cpus 2 --machine "$T/cells3.dts" "$hello"
expect_bad_20s cellshuge "cellshuge.dts: node /cpus: property #address-cells: 1073741825" \
    --machine "$T/cellshuge.dts" "$hello"
expect_bad_20s isapsci "isapsci.dts: node /isa/debug-exit@if4: .*not an ISA device" \
    --machine "$T/isapsci.dts" "$hello"
# an ISA interrupt naming no input of the I/O APIC (24) or of the 8259A pair (not the cascade)
sed 's/interrupts = <4 3>;/interrupts = <24 3>;/' "$board" >"$T/gsi24.dts"
expect_bad_20s gsi24 "gsi24.dts: node /isa/serial@i3f8: property interrupts: entry 0 <24 ...> is not an input of" \
    --machine "$T/gsi24.dts" "$hello"
sed 's/interrupts = <4 3>;/interrupt-parent = <\&pic>; interrupts = <2 3>;/' "$board" >"$T/irq2.dts"
expect_bad_20s irq2 "irq2.dts: node /isa/serial@i3f8: property interrupts: entry 0 <2 ...> is not an input of /isa/interrupt-controller@i20" \
    --machine "$T/irq2.dts" "$hello"
# a device with several windows: an ISA child's reg entries must all be I/O space
sed 's/reg = <1 0x40 4>, <1 0x61 1>;/reg = <1 0x40 4>, <0 0x61 1>;/' "$board" >"$T/pitmem.dts"
expect_bad_20s pitmem "pitmem.dts: node /isa/timer@i40: property reg: entry 1: only I/O space" \
    --machine "$T/pitmem.dts" "$hello"
expect_bad_20s devzero "/dev/zero: a character device, not a regular file" --machine /dev/zero "$hello"
expect_bad_20s fifo "fifo: a FIFO, not a regular file" --machine "$T/fifo" "$hello"
printf '/dts-v1/;\n/ { p = /incbin/("%s"); };\n' "$T/fifo" >"$T/incfifo.dts"
expect_bad_20s incfifo "incfifo.dts: dtc could not compile it: stopped by signal 14 .*run 10 s" \
    --machine "$T/incfifo.dts" "$hello"
expect_bad_20s dir "a directory, not a regular file" --machine "$T" "$hello"
expect_bad_20s bigdts "big.dts: larger than 1 MiB" --machine "$T/big.dts" "$hello"
expect_bad_20s bootargs5000 "--bootargs: 5000 characters; at most 4095" \
    --bootargs "$(head -c 5000 /dev/zero | tr '\0' x)" "$hello"
expect_bad_20s memmis "memmis.dts: node /memory@0: .*base is not a multiple of 4 KiB" \
    --machine "$T/memmis.dts" "$hello"
expect_bad_20s ram16t "ram16t.dts: node /memory@0: .*bytes of memory in all, more than pmusim's 1 TiB" \
    --machine "$T/ram16t.dts" "$hello"
expect_bad_20s bigdtb "bigdtb.dts: the device tree the guest gets .* is 7[0-9]* bytes; at most 65536 fit" \
    --machine "$T/bigdtb.dts" "$hello"
expect_bad_20s plram "plram.dts: node /pl011@9000000: .*0x40001000+0x1000 shares a 4 KiB page" \
    --machine "$T/plram.dts" "$arm64"
# --mem and --initrd (issue 13, item 7): a malformed size, RAM too small for the image or the DTB,
# an initrd that is missing, not a file, an output, or too big for the RAM above the image
for m in 0 1.5G 3000 1k 2T 4096X -1 99999999999999999999G; do
    expect_bad_20s "mem$m" "--mem $m: expected a size from 4K to 1T" --mem "$m" "$arm64"
done
expect_bad_20s memimage "hello.elf: segment at .* not inside RAM .*--mem sets the RAM size" --mem 64K "$arm64"
head -c 1044480 /dev/zero >"$T/fill.bin"          # 1 MiB - 4 KiB: no 64 KiB left above it
expect_bad_20s memdtb "no room for the device tree (64 KiB, above 0x400ff000: above the image) in RAM 0x40000000+1 MiB; --mem" \
    --mem 1M --arch arm64 --load-addr 0x40000000 "$T/fill.bin"
expect_bad_20s memx86 "built-in board with --mem: node /interrupt-controller@fee00000: .*shares a 4 KiB page" \
    --mem 4G "$hello"
expect_bad_20s memppc "--mem 0x100000000: built-in board: node /memory@0: #size-cells = <1>" \
    --mem 4G "$GUESTS/ppc32/hello.elf"
sed 's/memory@40000000 {/memory@40000000 { status = "okay";/; s/\(reg = <0x0 0x40000000 0x0 0x40000000>\);/\1, <0x1 0x0 0x0 0x1000>;/' \
    "$SRC/sim/boards/arm64.dts" >"$T/mem2.dts"
expect_bad_20s memtwo "mem2.dts: node /memory@40000000: property reg: --mem sets the size of a node with one range" \
    --mem 256M --machine "$T/mem2.dts" "$arm64"
expect_bad_20s initrdmissing "--initrd /no/such/initrd: No such file or directory" --initrd /no/such/initrd "$arm64"
expect_bad_20s initrddir "--initrd $T: not a regular file" --initrd "$T" "$arm64"
expect_bad_20s initrdfifo "fifo: not a regular file" --initrd "$T/fifo" "$arm64"
truncate -s 2G "$T/huge.initrd"
expect_bad_20s initrdhuge "--initrd .*huge.initrd: 2147483648 bytes, more than the 939524096 bytes of room (it goes at 0x48000000" \
    --initrd "$T/huge.initrd" "$arm64"
truncate -s 33521664 "$T/fits.initrd"              # 32 MiB - 32 KiB: from 0x42000000, no 64 KiB after it
expect_bad_20s initrddtb "no room for the device tree (64 KiB, above 0x43ff8000: above the image and the initrd)" \
    --mem 64M --initrd "$T/fits.initrd" "$arm64"
expect_bad_20s initrdout "--initrd .*fits.initrd and --trace .*fits.initrd are the same file" \
    --initrd "$T/fits.initrd" --trace "$T/fits.initrd" "$arm64"
check "initrdout: the input is untouched" [ "$(wc -c <"$T/fits.initrd")" = 33521664 ]
# A malformed initramfs (newc cpio, base/cpio.h, as Linux unpacks it): the file and the offset
# of what is wrong.  The scenario's own initramfs cut inside /init's data, and an old-format cpio.
head -c 1000 "$GUESTS/arm64/initramfs.cpio" >"$T/cut.cpio"
expect_bad_20s initrdcut "--initrd .*cut.cpio: offset 0x[0-9a-f]*: init's [0-9]* bytes of data run past the end of the file (1000 bytes)" \
    --initrd "$T/cut.cpio" "$arm64"
printf '070707%0104d' 0 >"$T/odc.cpio"
expect_bad_20s initrdodc "--initrd .*odc.cpio: offset 0x0: an old-format cpio header (070707)" --initrd "$T/odc.cpio" "$arm64"

args=$(head -c 4095 /dev/zero | tr '\0' x)
run "$T/bootargs4095" --cpus 16 --bootargs "$args" "$hello"
check "bootargs4095: the guest gets all 4095 characters" grep -q "^bootargs: $args\$" "$T/bootargs4095.out"
cp "$board" "$T/-q.dts"             # dtc took it for its -q option
(cd "$T" && run "$T/dashfile" --machine -q.dts "$hello")
check "dashfile: a --machine path starting with - is a file" cmp -s "$EXPECTED/x86_64/hello.out" "$T/dashfile.out"

# pmusim report: sums that do not fit 64 bits are refused, naming FILE:LINE
printf '# pmusim samples 1 arch=x86_64 samples=0\ninsns pc=0x100000 count=%s window=0 cycles=0\n%s\n' \
    9223372036854775808 "insns pc=0x100000 count=9223372036854775808 window=0 cycles=0" >"$T/wrap.samples"
expect_bad_20s reportwrap "wrap.samples:3: the counts overflow" report "$hello" "$T/wrap.samples"
printf '# pmusim samples 1 arch=x86_64 samples=0\ninsns pc=0x100000 count=-1 window=0 cycles=0\n' >"$T/neg.samples"
expect_bad_20s reportneg "neg.samples:2: malformed insns line" report "$hello" "$T/neg.samples"
finish
