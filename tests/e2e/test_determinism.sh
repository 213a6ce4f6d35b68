#!/bin/sh
# Same inputs, same bytes: console, trace and stats of two runs are identical, also when the
# two runs execute at the same time (host load), on 1 and 4 CPUs.
. "$(dirname "$0")/lib.sh" "$@"

for a in $ARCHES; do
    for g in "smp.elf --cpus 4" "trap.elf" "hello.elf --cpus 2"; do
        set -- $g
        elf=$1
        shift
        name=$a-${elf%.elf}
        "$PMUSIM" "$@" --stats --trace "$T/$name.1.trace" "$GUESTS/$a/$elf" >"$T/$name.1.out" 2>"$T/$name.1.err" &
        "$PMUSIM" "$@" --stats --trace "$T/$name.2.trace" "$GUESTS/$a/$elf" >"$T/$name.2.out" 2>"$T/$name.2.err" &
        wait
        "$PMUSIM" "$@" --stats --trace "$T/$name.3.trace" "$GUESTS/$a/$elf" >"$T/$name.3.out" 2>"$T/$name.3.err"
        for k in 2 3; do
            for f in trace out err; do
                check "$name: run $k $f differs from run 1" cmp -s "$T/$name.1.$f" "$T/$name.$k.$f"
            done
        done
        check "$name: the trace is not empty" [ -s "$T/$name.1.trace" ]
    done
done

# Interrupts through the arm64 GIC: the timer into a loop and out of WFI, the PMU's overflow as a
# pseudo-NMI (the unit tests' fixtures, raw at 0x40080000), with --quantum changing how the run is
# cut into rounds: the same bytes.
case " $ARCHES " in *" arm64 "*)
    for b in arm64_gic_timer arm64_gic_nmi; do
        bin=$BUILD/tests/blobs/$b.bin
        for q in 100000 777; do
            "$PMUSIM" run --arch arm64 --load-addr 0x40080000 --quantum $q --stats --trace "$T/$b.$q.trace" "$bin" \
                >"$T/$b.$q.out" 2>"$T/$b.$q.err"
        done
        "$PMUSIM" run --arch arm64 --load-addr 0x40080000 --stats --trace "$T/$b.again.trace" "$bin" \
            >"$T/$b.again.out" 2>"$T/$b.again.err"
        check "$b: the trace names GIC accesses and interrupts" grep -q "interrupt vector=.*gic-read\|ICC_IAR1_EL1" "$T/$b.100000.trace"
        for k in 777 again; do
            check "$b: run $k trace differs" cmp -s "$T/$b.100000.trace" "$T/$b.$k.trace"
            check "$b: run $k stats differ" cmp -s "$T/$b.100000.err" "$T/$b.$k.err"
        done
    done
    ;;
esac
finish
