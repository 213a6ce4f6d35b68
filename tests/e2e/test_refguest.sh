#!/bin/sh
# The QEMU reference guests (${PMUSIM_SHARED:-../shared}/reference/qemu-bare-metal-guests), built unchanged for
# QEMU's virt / pc / 40p boards, print on pmusim the same lines as under QEMU (recorded in
# tests/e2e/refguest/<arch>.qemu.txt; also compared live when QEMU is installed), except the
# documented PMU/timing probes in refguest/differences.txt.
. "$(dirname "$0")/lib.sh" "$@"

REF=${PMUSIM_SHARED:-$SRC/../shared}/reference/qemu-bare-metal-guests
if [ ! -d "$REF" ]; then
    echo "SKIP: $REF is not present"
    exit 77
fi
cp -r "$REF" "$T/ref"
DIFFS=$SRC/tests/e2e/refguest/differences.txt

# compare_lines QEMU_OUTPUT PMUSIM_OUTPUT ARCH
compare_lines() {
    if [ "$(wc -l <"$1")" != "$(wc -l <"$2")" ]; then
        fail "$3: $(wc -l <"$2") lines on pmusim, $(wc -l <"$1") under QEMU"
        return
    fi
    i=0
    while IFS= read -r q <&3 && IFS= read -r p <&4; do
        i=$((i + 1))
        [ "$q" = "$p" ] && { ok; continue; }
        allowed=no
        while IFS='|' read -r arch prefix why; do
            [ "$arch" = "$3" ] || continue
            case $q in "$prefix"*) case $p in "$prefix"*) allowed=yes ;; esac ;; esac
        done <"$DIFFS"
        if [ $allowed = yes ]; then ok; else fail "$3 line $i: QEMU '$q' vs pmusim '$p'"; fi
    done 3<"$1" 4<"$2"
}

for a in $ARCHES; do
    if ! make -s -C "$T/ref" ARCH=$a TAG=-e2e EXTRA_CFLAGS=-DBENCH_ITERS=1000ULL >"$T/build-$a.log" 2>&1; then
        fail "$a: the reference guest does not build"
        cat "$T/build-$a.log"
        continue
    fi
    elf=$T/ref/build/$a-gcc-e2e/guest.elf
    "$PMUSIM" "$elf" 2>"$T/$a.err" | tr -d '\r' >"$T/$a.pmusim"
    check "$a: reached GUEST-OK" grep -q "^GUEST-OK$" "$T/$a.pmusim"
    compare_lines "$SRC/tests/e2e/refguest/$a.qemu.txt" "$T/$a.pmusim" $a
    case $a in x86_64) q=qemu-system-x86_64 ;; arm64) q=qemu-system-aarch64 ;; ppc32) q=qemu-system-ppc ;; esac
    if command -v $q >/dev/null 2>&1; then
        timeout 60 "$T/ref/run-qemu.sh" $a "$elf" </dev/null 2>/dev/null | tr -d '\r' >"$T/$a.qemu"
        compare_lines "$T/$a.qemu" "$T/$a.pmusim" $a
    else
        echo "note: $q not installed: compared with the recorded QEMU output only"
    fi
done
finish
