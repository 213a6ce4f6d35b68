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
finish
