#!/bin/sh
# qemu-check.sh — run the guests under QEMU, the comparison peer (guest/NOTES.md has the
# results and the differences from pmusim that are expected).
#
#   guest/qemu-check.sh [BUILD_DIR [ARCH...]]     (default: build/guest, all architectures)
#
# Prints each guest's console output and exit status, then checks every loop guest's
# instruction count: it builds loop.S with N = 1000 and 2000 iterations, counts the
# instructions QEMU executes from the ELF entry to exit_insn (-singlestep -d exec), derives the
# count for the real N = 1000000 and compares it with tests/e2e/expected/<arch>/loop.insns.
# Exits non-zero if a count differs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "${1:-$here/../build/guest}" && pwd) || exit 2
[ $# -gt 0 ] && shift
arches=${*:-x86_64 arm64 ppc32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# qemu ARCH ELF [extra args]: run with a 20 s limit
qemu() {
    a=$1 elf=$2
    shift 2
    case $a in
    x86_64) timeout 20 qemu-system-x86_64 -M pc -display none -serial stdio -no-reboot \
                -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel "$elf" "$@" ;;
    arm64)  timeout 20 qemu-system-aarch64 -M virt -cpu cortex-a57 -nographic -kernel "$elf" "$@" ;;
    # qemu-system-ppc has no isa-debug-exit: the guests fall back to the ib700 (status 0).
    ppc32)  timeout 20 qemu-system-ppc -M 40p -cpu 7450 -display none -serial stdio \
                -device ib700 -watchdog-action poweroff -audiodev none,id=a0 -bios "$elf" "$@" \
                2>/dev/null ;;
    esac
}

run() {
    echo "== $*"
    qemu "$@"
    echo "-- status $?"
}

# count ARCH ELF: instructions from the ELF entry to exit_insn, inclusive
count() {
    a=$1 elf=$2 nm=nm
    case $a in arm64) nm=aarch64-linux-gnu-nm ;; ppc32) nm=powerpc-linux-gnu-nm ;; esac
    entry=$($nm "$elf" | awk '$3 == "_start64" || $3 == "_start" { print $1 }')
    stop=$($nm "$elf" | awk '$3 == "exit_insn" { print $1 }')
    qemu "$a" "$elf" -singlestep -d exec,nochain -dfilter "0x$entry..0x$stop" -D "$tmp/exec.log" \
        >/dev/null
    # "Trace 0: 0x... [cs_base/pc/flags/...]": one line per instruction with -singlestep
    awk -F'[[/]' -v e="$entry" -v s="$stop" '
        function norm(x) { sub(/^0+/, "", x); return x }
        BEGIN { e = norm(e); s = norm(s) }
        # A TB logged and then abandoned for an exit request did not execute.
        /^Stopped execution of TB chain before/ { if (n) n--; next }
        !/^Trace/ { next }
        { pc = norm($3) }
        pc == e && !n { n = 1; next }
        n { n++ }
        n && pc == s { print n; exit }' "$tmp/exec.log"
}

fail=0
for a in $arches; do
    for g in hello loop trap smp; do
        run "$a" "$out/$a/$g.elf"
    done
    [ "$a" = arm64 ] && for n in 2 4; do run arm64 "$out/arm64/smp.elf" -smp $n; done

    for n in 1000 2000; do
        make -s -C "$here" O="$tmp/n$n" ARCHES="$a" EXTRA_CFLAGS=-DLOOP_N=$n "$tmp/n$n/$a/loop.elf" \
            >/dev/null || exit 2
        eval "c$n=\$(count $a $tmp/n$n/$a/loop.elf)"
    done
    k=$(( (c2000 - c1000) / 1000 ))
    total=$(( c1000 - 1000 * k + 1000000 * k ))
    want=$(cat "$here/../tests/e2e/expected/$a/loop.insns")
    echo "== $a loop count: N=1000: $c1000, N=2000: $c2000 -> $k per iteration," \
         "N=1000000: $total (expected $want)"
    [ "$total" = "$want" ] || { echo "-- MISMATCH"; fail=1; }
done
exit $fail
