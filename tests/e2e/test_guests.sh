#!/bin/sh
# Every guest on every architecture prints exactly its expected output and exits with its
# expected status; smp on 1, 2 and 4 CPUs.
. "$(dirname "$0")/lib.sh" "$@"

compare() {     # compare NAME OUTPREFIX EXPECTED.out EXPECTED.status
    if ! cmp -s "$2.out" "$3"; then
        fail "$1: console differs from $3"
        diff "$3" "$2.out" | head -20
    else
        ok
    fi
    check "$1: exit status $(cat "$2.status"), expected $(cat "$4")" [ "$(cat "$2.status")" = "$(cat "$4")" ]
}

for a in $ARCHES; do
    for g in hello loop trap; do
        run "$T/$a-$g" "$GUESTS/$a/$g.elf"
        compare "$a/$g" "$T/$a-$g" "$EXPECTED/$a/$g.out" "$EXPECTED/$a/$g.status"
    done
    for n in 1 2 4; do
        run "$T/$a-smp$n" --cpus $n --stats "$GUESTS/$a/smp.elf"
        compare "$a/smp --cpus $n" "$T/$a-smp$n" "$EXPECTED/$a/smp.$n.out" "$EXPECTED/$a/smp.status"
        check "$a/smp --cpus $n: $n stats lines" [ "$(grep -c '^cpu[0-9]*: insns=' "$T/$a-smp$n.err")" = "$n" ]
    done
done
# --console FILE: the console goes to the file, nothing to stdout
run "$T/con" --console "$T/console.txt" "$GUESTS/arm64/hello.elf"
check "--console: file holds the output" cmp -s "$T/console.txt" "$EXPECTED/arm64/hello.out"
check "--console: stdout stays empty" [ ! -s "$T/con.out" ]
finish
