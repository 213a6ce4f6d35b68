#!/bin/sh
# scripts/demo.sh BUILD [ARCH|all] — the default scenario on the built-in boards: every CPU of a
# 4-CPU machine reports in (smp guest), with per-CPU instruction and cycle counts.
set -u
BUILD=$1
ARCHES=${2:-all}
[ "$ARCHES" = all ] && ARCHES="x86_64 arm64 ppc32"
status=0
for a in $ARCHES; do
    echo "=== $a: build/pmusim run --cpus 4 --stats build/guest/$a/smp.elf"
    "$BUILD/pmusim" run --cpus 4 --stats "$BUILD/guest/$a/smp.elf"
    rc=$?
    echo "(exit status $rc)"
    echo
    case $a in
    arm64) [ $rc = 0 ] || status=1 ;;
    *) [ $rc = 1 ] || status=1 ;;        # isa-debug-exit code 0 -> status 1, as under QEMU
    esac
done
exit $status
