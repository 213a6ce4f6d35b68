#!/bin/sh
# patch-insn.sh ELF SYMBOL OFFSET OLD NEW OUT — a copy of ELF with the bytes at SYMBOL+OFFSET
# changed from OLD to NEW (hex, "cd80"): one instruction patched, for tests/e2e/test_diff.sh.
# The symbol's address comes from the symbol table and becomes a file offset through the PT_LOAD
# segment holding it (readelf -s, readelf -l: any architecture's ELF); the old bytes are checked
# first, so a guest whose code moved fails here instead of patching something else.
set -eu
elf=$1 sym=$2 off=$3 old=$4 new=$5 out=$6
addr=$(readelf -sW "$elf" | awk -v s="$sym" '$8 == s { print $2; exit }')
[ -n "$addr" ] || { echo "patch-insn: $elf has no symbol $sym" >&2; exit 1; }
va=$((0x$addr + off))
# LOAD  Offset VirtAddr PhysAddr FileSiz MemSiz ...: the segment whose file bytes hold va
fileoff=
for seg in $(readelf -lW "$elf" | awk '$1 == "LOAD" { print $2 ":" $3 ":" $5 }'); do
    o=${seg%%:*} rest=${seg#*:}
    v=${rest%%:*} size=${rest#*:}
    if [ "$va" -ge $((v)) ] && [ "$va" -lt $((v + size)) ]; then
        fileoff=$((o + va - v))
        break
    fi
done
[ -n "$fileoff" ] || { echo "patch-insn: $sym+$off is in no loaded segment of $elf" >&2; exit 1; }
n=$((${#old} / 2))
have=$(od -An -tx1 -j "$fileoff" -N "$n" "$elf" | tr -d ' \n')
[ "$have" = "$old" ] || { echo "patch-insn: $sym+$off holds $have, not $old" >&2; exit 1; }
cp "$elf" "$out"
# the new bytes as printf's octal escapes (POSIX printf has no \xNN), written over the old ones
esc=
for h in $(echo "$new" | sed 's/../& /g'); do
    esc=$esc$(printf '\\%03o' $((0x$h)))
done
printf "$esc" | dd of="$out" bs=1 seek="$fileoff" conv=notrunc 2>/dev/null
