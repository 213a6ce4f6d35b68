#!/bin/sh
# The loop guest retires exactly the instruction count derived in its source (loop.S); the
# per-instruction reference counter agrees; --max-insns N stops after exactly N instructions,
# also in the middle of a block; --max-cycles stops at the first instruction reaching N cycles.
. "$(dirname "$0")/lib.sh" "$@"

for a in $ARCHES; do
    elf=$GUESTS/$a/loop.elf
    want=$(cat "$EXPECTED/$a/loop.insns")
    run "$T/$a" --stats --icount-check "$elf"
    got=$(field insns "$T/$a.err")
    check "$a: loop retired $got instructions, expected $want" [ "$got" = "$want" ]
    check "$a: per-instruction reference agrees" grep -q "icount-check: cpu0 .* ok" "$T/$a.err"
    for q in 1 97 100000; do
        run "$T/$a-q$q" --stats --quantum $q "$elf"
        check "$a: quantum $q gives the same count" [ "$(field insns "$T/$a-q$q.err")" = "$want" ]
    done
    for n in 1 2 3 17 1000 1001 1002 123457 $((want - 1)); do
        run "$T/$a-max$n" --stats --max-insns $n "$elf"
        check "$a: --max-insns $n retired $(field insns "$T/$a-max$n.err")" [ "$(field insns "$T/$a-max$n.err")" = "$n" ]
        check "$a: --max-insns $n: exit status 3" [ "$(cat "$T/$a-max$n.status")" = 3 ]
    done
    run "$T/$a-maxc" --stats --max-cycles 500000 "$elf"
    cyc=$(field cycles "$T/$a-maxc.err")
    check "$a: --max-cycles 500000 stopped at $cyc" [ "$cyc" -ge 500000 ] && [ "$cyc" -lt 500200 ]
    check "$a: --max-cycles: exit status 3" [ "$(cat "$T/$a-maxc.status")" = 3 ]
done
finish
