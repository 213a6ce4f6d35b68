#!/usr/bin/env python3
"""kaslr_offset.py ERR MAP: the kernel offset that pmusim's PC report in ERR ("pmusim: cpu0: pc
0x... <NAME+0xOFF>", sim/machine.c mach_print_pcs) implies with MAP (a System.map: the dump of
--dump-symbols, link addresses): pc - NAME's address - OFF, printed as 0x...; "bad: ..." when
NAME is not a function or the offset is not a kernel_alignment (2 MiB) multiple below 1 GiB
(arch/x86/boot/compressed/kaslr.c: KERNEL_IMAGE_SIZE, CONFIG_PHYSICAL_ALIGN); "no named PC"
without one.  For test_linux_x86_syms.sh and test_linux_x86_boot.sh."""
import re
import sys

ALIGN = 0x200000
RANGE = 1 << 30

syms = {}
for line in open(sys.argv[2]):
    a, t, n = line.split()
    syms.setdefault(n, (int(a, 16), t))
m = re.search(r"cpu0: pc 0x([0-9a-f]+) <([^ +>]+)(?:\+0x([0-9a-f]+))?>", open(sys.argv[1]).read())
if not m or m.group(2) not in syms:
    print("no named PC")
    sys.exit(0)
pc, (addr, kind) = int(m.group(1), 16), syms[m.group(2)]
d = pc - addr - int(m.group(3) or "0", 16)
ok = kind in "Tt" and d % ALIGN == 0 and 0 <= d < RANGE
print("0x%x" % d if ok else "bad: type %s offset %x" % (kind, d))
