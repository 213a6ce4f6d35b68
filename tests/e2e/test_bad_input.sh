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
expect_bad noarg "usage" 
expect_bad twokernels "more than one KERNEL" "$hello" "$hello"
finish
