#!/bin/sh
# update-ftrace-expected.sh BUILD — rewrite the recorded outputs of test_ftrace.sh from BUILD's
# pmusim and guests.  They hold cycles, PCs and timestamps, which move with any change to the
# guests' code: run this after such a change, and read the diff before committing it.
set -eu
B=$(cd "$1" && pwd)
E=$(cd "$(dirname "$0")" && pwd)/expected
for a in x86_64 arm64 ppc32; do
    s=; [ $a = x86_64 ] || s=--icache=strict
    "$B/pmusim" run --strict $s --guest-trace "$E/$a/ftrace.function" "$B/guest/$a/ftrace.elf" \
        >"$E/$a/ftrace.out" 2>"$E/$a/ftrace.err" || true
    grep -v '^icache:' "$E/$a/ftrace.err" >"$E/$a/ftrace.patching"
    rm -f "$E/$a/ftrace.err"
    "$B/pmusim" run --bootargs ftrace=function_graph --guest-trace "$E/$a/ftrace.graph" \
        "$B/guest/$a/ftrace.elf" >/dev/null || true
done
bad() {
    a=$1 g=$2
    shift 2
    "$B/pmusim" run --cpus 2 --strict "$@" "$B/guest/$a/$g.elf" >/dev/null 2>"$E/$a/$g.report" || true
}
bad x86_64 bad-no-int3
bad x86_64 bad-non-site
bad x86_64 bad-nop-size
bad arm64 bad-concurrent
bad arm64 bad-no-icache --icache=strict
bad ppc32 bad-no-icache --icache=strict
