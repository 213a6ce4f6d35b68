#!/bin/sh
# An arm64 Linux Image's symbols from its own kallsyms tables (base/kallsyms.c), without a
# vmlinux: --dump-symbols prints them as a System.map; --symbols FILE replaces them; traces name
# the kernel's functions at physical PCs (MMU off) and virtual ones (MMU on).  Needs the kernel:
# need_linux_image (lib.sh: $PMUSIM_LINUX_ARM64_IMAGE, by default the fetched build/linux-cache/
# arm64/Image), else SKIP (77).
# The kernel's own /proc/kallsyms, read by a tiny init (data/kallsyms-init.c) in the kernel as
# QEMU boots it (-M virt, nokaslr), must be the dump line for line (skipped without QEMU or the
# cross compiler).
. "$(dirname "$0")/lib.sh" "$@"

need_linux_image arm64
IMAGE=$LINUX_IMAGE
LOAD=0x40200000
LINUX="--arch arm64 --load-addr $LOAD"

# addr NAME MAP: the address of NAME in a System.map
addr() {
    awk -v n="$1" '$3 == n { print $1; exit }' "$2"
}

run "$T/a" --dump-symbols $LINUX "$IMAGE"
check "dump: status 0" [ "$(cat "$T/a.status")" = 0 ]
check "dump: more than 50000 symbols" [ "$(wc -l <"$T/a.out")" -gt 50000 ]
check "dump: System.map lines" sh -c "! grep -qv '^[0-9a-f]\{16\} [!-~] [!-~]*\$' '$T/a.out'"
check "dump: in address order" sort -c -s -k1,1 "$T/a.out"
for s in start_kernel schedule; do
    check "dump: $s is a global function" grep -q "^[0-9a-f]* T $s\$" "$T/a.out"
done
for s in mcount_loc __jump_table; do
    start=$(addr "__start_$s" "$T/a.out")
    stop=$(addr "__stop_$s" "$T/a.out")
    check "dump: __start_$s and __stop_$s" [ -n "$start" ] && [ -n "$stop" ] && [ "$start" \< "$stop" ]
done
check "dump: _text is the lowest address" [ "$(head -n 1 "$T/a.out" | cut -c1-16)" = "$(addr _text "$T/a.out")" ]
run "$T/b" --dump-symbols $LINUX "$IMAGE"
check "dump: the same twice" cmp -s "$T/a.out" "$T/b.out"
run "$T/k" --dump-symbols --kernel "$IMAGE"
check "dump: --kernel gives the same symbols" cmp -s "$T/a.out" "$T/k.out"
gzip -c "$IMAGE" >"$T/Image.gz"
run "$T/z" --dump-symbols --kernel "$T/Image.gz"
check "dump: --kernel Image.gz gives the same symbols" cmp -s "$T/a.out" "$T/z.out"

# --symbols: the dump as a System.map gives the same symbols; a bad line is refused by number
cp "$T/a.out" "$T/System.map"
run "$T/m" --dump-symbols $LINUX --symbols "$T/System.map" "$IMAGE"
check "--symbols System.map: the same symbols" cmp -s "$T/a.out" "$T/m.out"
sed '3s/ / x/' "$T/a.out" >"$T/bad.map"
run "$T/bm" --dump-symbols $LINUX --symbols "$T/bad.map" "$IMAGE"
check "--symbols bad.map: status 2" [ "$(cat "$T/bm.status")" = 2 ]
check "--symbols bad.map: names the file and line 3" grep -q "bad.map: line 3 " "$T/bm.err"

# an image cut before its tables: no symbols, and why
head -c $(($(wc -c <"$IMAGE") / 2)) "$IMAGE" >"$T/half"
run "$T/h" --dump-symbols $LINUX "$T/half"
check "half an Image: status 2" [ "$(cat "$T/h.status")" = 2 ]
check "half an Image: says which table is missing" grep -q "half: .*kallsyms_" "$T/h.err"

# A few million instructions of the boot: the trace names the PCs, physical and virtual, as
# the dump places them (NAME+OFF is the PC; a physical PC is _text's load address + its offset)
run "$T/r" $LINUX --bootargs "console=ttyAMA0" --max-insns 3000000 --quiet --trace "$T/r.trace" "$IMAGE"
check "boot: stopped by --max-insns" [ "$(cat "$T/r.status")" = 3 ]
python3 - "$T/r.trace" "$T/a.out" "$LOAD" >"$T/r.check" <<'PY'
import re, sys
syms = {}
for l in open(sys.argv[2]):
    a, t, n = l.split()
    syms.setdefault(n, int(a, 16))
text, load = syms["_text"], int(sys.argv[3], 16)
seen = {"virtual": 0, "physical": 0}
for l in open(sys.argv[1]):
    m = re.search(r" pc=0x([0-9a-f]+) sym=([^ +]+)(?:\+0x([0-9a-f]+))?", l)
    if not m:
        continue
    pc, name, off = int(m.group(1), 16), m.group(2), int(m.group(3) or "0", 16)
    kind = "virtual" if pc >= text else "physical"
    want = syms[name] + off if kind == "virtual" else syms[name] - text + load + off
    if want != pc:
        print("mismatch:", l.strip())
        sys.exit(1)
    seen[kind] += 1
print("virtual=%d physical=%d" % (seen["virtual"], seen["physical"]))
PY
check "boot trace: every sym= is where the dump puts it" [ $? = 0 ]
check "boot trace: physical PCs named" grep -q "physical=[1-9]" "$T/r.check"
check "boot trace: virtual PCs named" grep -q "virtual=[1-9]" "$T/r.check"
# /proc/kallsyms of the booted kernel: the same lines, in the same order
if ! command -v qemu-system-aarch64 >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
    echo "note: no qemu-system-aarch64 or aarch64-linux-gnu-gcc: /proc/kallsyms not compared"
    finish
fi
aarch64-linux-gnu-gcc -O1 -static -nostdlib -ffreestanding -fno-stack-protector -o "$T/init" \
    "$SRC/tests/e2e/data/kallsyms-init.c"
init_cpio "$T/init" "$T/initrd.cpio"
timeout -k 10 600 qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1G -nographic -no-reboot -kernel "$IMAGE" \
    -initrd "$T/initrd.cpio" -append "console=ttyAMA0 nokaslr rdinit=/init" </dev/null >"$T/q.out" 2>&1
tr -d '\r' <"$T/q.out" | sed -n '/^KSTART$/,/^KEND$/p' | sed '1d;$d' >"$T/proc_kallsyms"
check "QEMU boot: /proc/kallsyms read" [ "$(wc -l <"$T/proc_kallsyms")" -gt 50000 ]
check "QEMU boot: no module symbols (none loaded)" sh -c "! grep -q '\[' '$T/proc_kallsyms'"
check "QEMU boot: /proc/kallsyms is the dump, line for line" cmp -s "$T/proc_kallsyms" "$T/a.out"
finish
