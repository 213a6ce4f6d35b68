#!/bin/sh
# Code patching (guest/ftrace.c, docs/patching.md): the ftrace guest on every architecture, 1 and
# 4 CPUs, with the patch validator (--check-patching --strict, and --icache=strict on arm64 and
# ppc32) finding nothing; its console, validator summary and decoded traces (function and
# function_graph, --guest-trace) as recorded and the same run to run; filters, ring modes and
# the static key; and every faulty fixture (bad-*.elf) caught with its recorded report.
. "$(dirname "$0")/lib.sh" "$@"

# guest exit status: isa-debug-exit code 0 -> 1 (x86_64, ppc32); PSCI SYSTEM_OFF -> 0 (arm64)
ok_status() { [ "$1" = arm64 ] && echo 0 || echo 1; }
strict_icache() { [ "$1" = x86_64 ] || echo --icache=strict; }

for a in $ARCHES; do
    ELF=$GUESTS/$a/ftrace.elf
    st=$(ok_status $a)
    run "$T/$a.1" --strict $(strict_icache $a) --guest-trace "$T/$a.1.fn" "$ELF"
    check "$a ftrace 1 cpu: exit status $st" [ "$(cat "$T/$a.1.status")" = "$st" ]
    check "$a ftrace 1 cpu: console as recorded" cmp -s "$EXPECTED/$a/ftrace.out" "$T/$a.1.out"
    check "$a ftrace 1 cpu: no violations" grep -q '^patching: .* 0 violations$' "$T/$a.1.err"
    grep -v '^icache:' "$T/$a.1.err" >"$T/$a.1.patching"
    check "$a ftrace 1 cpu: validator summary as recorded" cmp -s "$EXPECTED/$a/ftrace.patching" "$T/$a.1.patching"
    check "$a ftrace 1 cpu: function trace as recorded" cmp -s "$EXPECTED/$a/ftrace.function" "$T/$a.1.fn"
    check "$a ftrace: the static key's branch traced once per traced round" \
        [ "$(grep -c ': record_stats[.a-z0-9]* <-work_round$' "$T/$a.1.fn")" = 3 ]

    run "$T/$a.g" --bootargs ftrace=function_graph --guest-trace "$T/$a.g.fn" "$ELF"
    check "$a function_graph: as recorded" cmp -s "$EXPECTED/$a/ftrace.graph" "$T/$a.g.fn"

    run "$T/$a.4a" --cpus 4 --strict $(strict_icache $a) --guest-trace "$T/$a.4a.fn" --trace "$T/$a.4a.trace" "$ELF"
    run "$T/$a.4b" --cpus 4 --strict $(strict_icache $a) --guest-trace "$T/$a.4b.fn" "$ELF"
    check "$a ftrace 4 cpus: exit status $st" [ "$(cat "$T/$a.4a.status")" = "$st" ]
    check "$a ftrace 4 cpus: no violations" grep -q '^patching: .* 0 violations$' "$T/$a.4a.err"
    check "$a ftrace 4 cpus: every cpu traced" \
        sh -c "for c in 000 001 002 003; do grep -q \"\\[\$c\\]\" '$T/$a.4a.fn' || exit 1; done"
    check "$a ftrace 4 cpus: decoded trace identical run to run" cmp -s "$T/$a.4a.fn" "$T/$a.4b.fn"
    # every CPU's events in time order: an IPI is stamped at the ICR write that sends it
    check "$a ftrace 4 cpus: each CPU's trace times never go back" awk '$2 ~ /^cpu/ {
        if (($2 in t) && $1 + 0 < t[$2]) exit 1; t[$2] = $1 + 0 }' "$T/$a.4a.trace"
    check "$a ftrace 4 cpus: validator report identical run to run" cmp -s "$T/$a.4a.err" "$T/$a.4b.err"

    run "$T/$a.f" --bootargs "ftrace_filter=fib,sort*" --guest-trace "$T/$a.f.fn" "$ELF"
    check "$a ftrace_filter: only fib and sort_small" \
        sh -c "grep -v '^#' '$T/$a.f.fn' | grep -qv ': \\(fib\\|sort_small\\) <-' && exit 1; grep -q ': fib <-' '$T/$a.f.fn'"

    run "$T/$a.d" --cpus 4 --bootargs "trace_buf_size=1024 trace_options=nooverwrite" --guest-trace "$T/$a.d.fn" "$ELF"
    check "$a nooverwrite: a full ring drops" grep -Eq '^ftrace: cpu 1: entries=32 overrun=0 dropped=[1-9]' "$T/$a.d.out"
    check "$a nooverwrite: nothing overwritten" grep -Eq '^# entries-in-buffer/entries-written: ([0-9]+)/\1 ' "$T/$a.d.fn"
    run "$T/$a.o" --cpus 4 --bootargs "trace_buf_size=1024" --guest-trace "$T/$a.o.fn" "$ELF"
    check "$a overwrite: the oldest entries go" grep -Eq '^ftrace: cpu 1: entries=32 overrun=[1-9][0-9]* dropped=0' "$T/$a.o.out"
    check "$a overwrite: the header counts them" \
        awk '/^# entries-in-buffer/ { split($3, n, "/"); exit !(n[1] + 0 < n[2] + 0) }' "$T/$a.o.fn"
done

check "x86_64 static keys: a 2-byte jmp site and a 5-byte NOP site, each patched" \
    sh -c "grep -q ' jump_label  2B 3: jump -> nop -> jump -> nop\$' '$T/x86_64.1.err' &&
           grep -q ' jump_label  5B 2: nop -> jump -> nop\$' '$T/x86_64.1.err'"

# ppc32 CPU feature sections: the MPC7447A has no L3 cache controller, so its section becomes NOPs
run "$T/7447a" --cpu-model mpc7447a --strict --icache=strict "$GUESTS/ppc32/ftrace.elf"
check "ppc32 7447A: the L3 feature section patched out" \
    grep -q '^cpu: PVR 0x80030102, features 0x0: 1 feature section(s) patched out$' "$T/7447a.out"
check "ppc32 7447A: and never run" grep -q '^ftrace: L3 feature section ran 0 times$' "$T/7447a.out"
check "ppc32 7447A: the validator knows the fixup site" grep -q ' fixup .*feature code -> nop$' "$T/7447a.err"
check "ppc32 7447A: no violations" grep -q '^patching: .* 0 violations$' "$T/7447a.err"
check "ppc32 7450: the section stays" grep -q '^ftrace: L3 feature section ran 5 times$' "$T/ppc32.1.out"

# The faulty fixtures: each caught, exit status 6 with --strict, the report as recorded.
bad() {
    a=$1 g=$2
    shift 2
    run "$T/$a.$g" --cpus 2 --strict "$@" "$GUESTS/$a/$g.elf"
    check "$a $g: --strict exit status 6" [ "$(cat "$T/$a.$g.status")" = 6 ]
    check "$a $g: report as recorded" cmp -s "$EXPECTED/$a/$g.report" "$T/$a.$g.err"
}
bad x86_64 bad-no-int3
check "x86_64 bad-no-int3: named" grep -q 'without the INT3 protocol while other CPUs run' "$T/x86_64.bad-no-int3.err"
bad x86_64 bad-non-site
check "x86_64 bad-non-site: named" grep -q 'unexpected code write: 1 bytes at mix+0x8' "$T/x86_64.bad-non-site.err"
bad x86_64 bad-nop-size
check "x86_64 bad-nop-size: named" grep -q 'left holding "nop; nop dword ptr \[rax\]"' "$T/x86_64.bad-nop-size.err"
bad arm64 bad-concurrent
check "arm64 bad-concurrent: named" grep -q 'concurrent modification of .*"mov x9, x30" -> "nop"' "$T/arm64.bad-concurrent.err"
bad arm64 bad-no-icache --icache=strict
check "arm64 bad-no-icache: named" grep -q 'stale instruction executed at .*DC CVAU' "$T/arm64.bad-no-icache.err"
bad ppc32 bad-no-icache --icache=strict
check "ppc32 bad-no-icache: named" grep -q 'stale instruction executed at .*dcbst' "$T/ppc32.bad-no-icache.err"
run "$T/coherent" --cpus 2 "$GUESTS/arm64/bad-no-icache.elf"
check "default coherent I-cache: the same guest runs clean" [ "$(cat "$T/coherent.status")" = 0 ]

run "$T/nort" --guest-trace "$T/x" "$GUESTS/x86_64/hello.elf"
check "--guest-trace on a guest without rings: status 2" [ "$(cat "$T/nort.status")" = 2 ]
check "--guest-trace on a guest without rings: says so" grep -q 'no trace_buffers symbol' "$T/nort.err"
# A corrupt site table is refused with the file and the entry, not followed.
cp "$GUESTS/x86_64/ftrace.elf" "$T/corrupt.elf"
off=$(objdump -h "$T/corrupt.elf" | awk '$2 == "__jump_table" { print $6 }')
printf '\377\377\377\177' | dd of="$T/corrupt.elf" bs=1 seek=$((0x$off)) conv=notrunc 2>/dev/null
run "$T/corrupt" --check-patching "$T/corrupt.elf"
check "corrupt __jump_table: status 2" [ "$(cat "$T/corrupt.status")" = 2 ]
check "corrupt __jump_table: names the file and the entry" \
    grep -q "corrupt.elf: offset 0x$(printf %x $((0x$off))): __jump_table entry 0: site 0x[0-9a-f]* overlaps another or is not in RAM" "$T/corrupt.err"

run "$T/x86strict" --icache=strict "$GUESTS/x86_64/ftrace.elf"
check "--icache=strict on x86_64: refused" [ "$(cat "$T/x86strict.status")" = 2 ]
finish
