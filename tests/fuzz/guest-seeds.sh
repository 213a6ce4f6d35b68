#!/bin/sh
# guest-seeds.sh GUESTDIR OUTDIR OBJCOPY_x86_64 OBJCOPY_arm64 OBJCOPY_ppc32 CPIODIR
# ELF seeds from the built guests: hello.elf and ftrace.elf of each architecture (ftrace.elf has
# every patch-site table), without their debug sections (tens of KB instead of a hundred); a
# missing guest or objcopy is skipped with a note (the committed and generated seeds remain).
# CPIODIR gets the Linux scenario's initramfs of each architecture that has one (fuzz_cpio).
set -u
guests=$1 out=$2 cpiodir=$6
shift 2
mkdir -p "$cpiodir"
for cpio in "$guests"/*/initramfs.cpio; do
    [ -f "$cpio" ] || continue
    arch=$(basename "$(dirname "$cpio")")
    cmp -s "$cpio" "$cpiodir/initramfs-$arch.cpio" || cp "$cpio" "$cpiodir/initramfs-$arch.cpio"
done
mkdir -p "$out"
for arch in x86_64 arm64 ppc32; do
    objcopy=$1
    shift
    for g in hello ftrace; do
        in=$guests/$arch/$g.elf
        dst=$out/guest-$arch-$g.elf
        if [ ! -f "$in" ]; then
            echo "guest-seeds: $in not built; skipped"
            continue
        fi
        [ -f "$dst" ] && [ "$dst" -nt "$in" ] && continue
        if [ -n "$objcopy" ] && "$objcopy" --strip-debug "$in" "$dst.tmp" 2>/dev/null; then
            mv "$dst.tmp" "$dst"
        else
            rm -f "$dst.tmp"
            cp "$in" "$dst"
        fi
    done
done
exit 0
