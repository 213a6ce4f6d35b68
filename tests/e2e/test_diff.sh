#!/bin/sh
# pmusim diff (docs/tools.md): the first event where two traces differ, from trace files or from
# two `pmusim run` command lines run side by side.  Checked on all three architectures: identical
# runs (status 0), runs that differ by one bootarg (the ftrace guest's ftrace=nop: status 1, the
# first differing event is the line where the two trace files first differ, found here with awk),
# the same answer from files and from command lines, the same bytes twice; one patched
# instruction (tests/e2e/patch-insn.sh) names its function; a run that ends first; the children
# are stopped at the difference; bad traces and bad command lines are refused with status 2, the
# file and the line.
. "$(dirname "$0")/lib.sh" "$@"

DATA=$(dirname "$0")/data
PATCH="sh $(dirname "$0")/patch-insn.sh"

# diffrun NAME ARGS...: pmusim diff ARGS, outputs in $T/NAME.{out,err,status}
diffrun() {
    _n=$1
    shift
    run "$T/$_n" diff "$@"
}
status() { cat "$T/$1.status"; }

# first_diff A B [ignore-cycle]: the number of the first line where the files differ (with
# ignore-cycle: leaving out the first word), or nothing
first_diff() {
    awk -v ic="${3:-}" 'NR == FNR { a[FNR] = $0; n = FNR; next }
        { x = a[FNR]; y = $0; if (ic) { sub(/^[^ ]* /, "", x); sub(/^[^ ]* /, "", y) }
          if (FNR > n || x != y) { print FNR; exit } }' "$1" "$2"
}

for a in $ARCHES; do
    elf=$GUESTS/$a/ftrace.elf
    run "$T/$a-a" --trace "$T/$a-a.trace" "$elf"
    run "$T/$a-a2" --trace "$T/$a-a2.trace" "$elf"
    run "$T/$a-nop" --trace "$T/$a-nop.trace" --bootargs ftrace=nop "$elf"

    # identical: files and runs
    diffrun $a-same "$T/$a-a.trace" "$T/$a-a2.trace"
    check "$a: identical traces: status 0" [ "$(status $a-same)" = 0 ]
    n=$(wc -l <"$T/$a-a.trace")
    check "$a: identical: $n events" grep -q "^identical: $n events" "$T/$a-same.out"
    diffrun $a-same-run -- "$elf" -- run "$elf"
    check "$a: identical runs: status 0" [ "$(status $a-same-run)" = 0 ]
    check "$a: identical runs: the same summary as the files" cmp -s "$T/$a-same.out" "$T/$a-same-run.out"
    check "$a: the guests' console is not in diff's output" sh -c "! grep -q '^ftrace:' '$T/$a-same-run.out'"

    # one bootarg: the first difference is where the files first differ
    line=$(first_diff "$T/$a-a.trace" "$T/$a-nop.trace")
    diffrun $a-arg "$T/$a-a.trace" "$T/$a-nop.trace"
    check "$a: ftrace=nop: status 1" [ "$(status $a-arg)" = 1 ]
    check "$a: ftrace=nop: first difference at line $line" \
        grep -q "^first difference: event $line (RUN_A line $line, RUN_B line $line)" "$T/$a-arg.out"
    check "$a: ftrace=nop: RUN_A's line shown" grep -qxF "  $(sed -n "${line}p" "$T/$a-a.trace")" "$T/$a-arg.out"
    check "$a: ftrace=nop: RUN_B's line shown" grep -qxF "  $(sed -n "${line}p" "$T/$a-nop.trace")" "$T/$a-arg.out"
    # leaving the cycle out: the first behavioural difference, ftrace_start's first call site
    line=$(first_diff "$T/$a-a.trace" "$T/$a-nop.trace" ignore-cycle)
    diffrun $a-argc --ignore-field cycle "$T/$a-a.trace" "$T/$a-nop.trace"
    check "$a: ftrace=nop, --ignore-field cycle: line $line" grep -q "(RUN_A line $line, RUN_B line $line)" "$T/$a-argc.out"
    check "$a: ftrace=nop: ftrace_start patches mix, a code-write" \
        grep -q "^RUN_A line $line: cycle [0-9]* cpu0 code-write pc=0x[0-9a-f]* sym=text_poke+0x" "$T/$a-argc.out"
    check "$a: ftrace=nop: the differing fields named" grep -q "^differs in: addr, at, new$" "$T/$a-argc.out"
    check "$a: ftrace=nop: 5 events of context" \
        [ "$(sed -n '/^the 5 events before it/,/^RUN_A line/p' "$T/$a-argc.out" | grep -c '^  [0-9]*:[0-9]*  ')" = 5 ]
    # the same from two command lines, twice the same bytes
    diffrun $a-argr --ignore-field cycle -- "$elf" -- --bootargs ftrace=nop "$elf"
    diffrun $a-argr2 --ignore-field cycle -- "$elf" -- --bootargs ftrace=nop "$elf"
    check "$a: ftrace=nop from runs: status 1" [ "$(status $a-argr)" = 1 ]
    # (after the two lines that name the sides)
    tail -n +3 "$T/$a-argc.out" >"$T/$a-argc.tail"
    check "$a: ftrace=nop from runs: the same answer as from files" \
        sh -c "tail -n +3 '$T/$a-argr.out' | cmp -s - '$T/$a-argc.tail'"
    check "$a: ftrace=nop from runs: RUN_B is the command line" \
        grep -qxF "RUN_B: pmusim run --bootargs ftrace=nop $elf" "$T/$a-argr.out"
    check "$a: determinism: the same bytes twice" cmp -s "$T/$a-argr.out" "$T/$a-argr2.out"
    # a file against a run
    diffrun $a-argm --ignore-field cycle "$T/$a-a.trace" -- --bootargs ftrace=nop "$elf"
    check "$a: a file against a run: the same answer" sh -c "tail -n +3 '$T/$a-argm.out' | cmp -s - '$T/$a-argc.tail'"
done

# A trace on standard input: `pmusim run --trace -` into diff through a pipe
"$PMUSIM" run --trace - --console /dev/null "$GUESTS/x86_64/ftrace.elf" 2>/dev/null |
    "$PMUSIM" diff - "$T/x86_64-a.trace" >"$T/stdin.out" 2>"$T/stdin.err"
check "a trace on standard input: identical" grep -q "^identical: $(wc -l <"$T/x86_64-a.trace") events" "$T/stdin.out"
# A run may not write over the other side's files
diffrun over "$T/x86_64-a.trace" -- --console "$T/x86_64-a.trace" "$GUESTS/x86_64/trap.elf"
check "a run's output over the other trace: status 2" [ "$(status over)" = 2 ]
check "a run's output over the other trace: refused" \
    grep -q "RUN_B --console $T/x86_64-a.trace and TRACE_A $T/x86_64-a.trace are the same file" "$T/over.err"
check "a run's output over the other trace: the trace is whole" cmp -s "$T/x86_64-a.trace" "$T/x86_64-a2.trace"
diffrun over2 -- --console "$T/c.out" "$GUESTS/x86_64/trap.elf" -- --console "$T/c.out" "$GUESTS/x86_64/trap.elf"
check "two runs with one output: refused" grep -q "another output" "$T/over2.err"

# One patched instruction: the first difference is in the function that holds it.
$PATCH "$GUESTS/x86_64/trap.elf" fire_int80 1 80 81 "$T/int81.elf" || fail "patch-insn x86_64"
diffrun x86-patch -- "$GUESTS/x86_64/trap.elf" -- "$T/int81.elf"
check "x86_64 int 0x81: status 1" [ "$(status x86-patch)" = 1 ]
check "x86_64 int 0x81: an exception in fire_int80" \
    grep -q "^RUN_B line [0-9]*: cycle [0-9]* cpu0 exception from=0x[0-9a-f]* sym=fire_int80+0x2$" "$T/x86-patch.out"
check "x86_64 int 0x81: the vector differs" grep -q "^  [0-9]* cpu0 exception vector=0x81 " "$T/x86-patch.out"
check "x86_64 int 0x81: differs in vector, to" grep -q "^differs in: vector, to$" "$T/x86-patch.out"
$PATCH "$GUESTS/arm64/trap.elf" fire_svc 0 410800d4 610800d4 "$T/svc43.elf" || fail "patch-insn arm64"
diffrun a64-patch -- "$GUESTS/arm64/trap.elf" -- "$T/svc43.elf"
check "arm64 svc #0x43: status 1" [ "$(status a64-patch)" = 1 ]
check "arm64 svc #0x43: the ESR of the SVC in fire_svc" grep -q "sym=fire_svc+0x4 to=0x40080a00 info=0x54000043$" "$T/a64-patch.out"
check "arm64 svc #0x43: differs in info" grep -q "^differs in: info$" "$T/a64-patch.out"
# ppc32: the illegal instruction made a nop: that run ends first
$PATCH "$GUESTS/ppc32/trap.elf" fire_illegal 0 00000000 60000000 "$T/nop.elf" || fail "patch-insn ppc32"
diffrun ppc-patch -- "$GUESTS/ppc32/trap.elf" -- "$T/nop.elf"
check "ppc32 no illegal instruction: status 1" [ "$(status ppc-patch)" = 1 ]
check "ppc32 no illegal instruction: RUN_B ends first" grep -q "^RUN_B ends first, at line [0-9]* (.* exit status=" "$T/ppc-patch.out"
check "ppc32 no illegal instruction: RUN_A's program check in fire_illegal" \
    grep -q "^RUN_A line [0-9]*: .* exception from=0x[0-9a-f]* sym=fire_illegal$" "$T/ppc-patch.out"
diffrun ppc-patch-ign --ignore exit,exception,exception-return -- "$GUESTS/ppc32/trap.elf" -- "$T/nop.elf"
check "ppc32 --ignore exit,exception,exception-return: identical" [ "$(status ppc-patch-ign)" = 0 ]

# A run that would go on for long (a trace storm, tests/e2e/data/runaway-x86_64.S) against one
# that ends: diff stops the first at the difference and reaps both.
as --64 --defsym HANDLER=0x100140 -o "$T/storm.o" "$DATA/runaway-x86_64.S" && objcopy -O binary "$T/storm.o" "$T/storm-diff-marker.bin"
storm="--arch x86_64 --load-addr 0x100000 $T/storm-diff-marker.bin"
# the processes running it, from /proc (the [r]: not this grep itself)
storms() { grep -ls 'storm-diff-marke[r]' /proc/[0-9]*/cmdline 2>/dev/null | wc -l; }
# shellcheck disable=SC2086 # $storm: the arguments, no spaces in $T
diffrun storm -- $storm -- --max-insns 1000 $storm
check "storm: status 1" [ "$(status storm)" = 1 ]
check "storm: RUN_B ends first (max-insns)" grep -q "^RUN_B ends first, at line .* reason=max-insns" "$T/storm.out"
check "storm: no child left running" [ "$(storms)" = 0 ]
# diff killed: its runs end with it (wait until both run, at most 60 s; then no storm is left)
# shellcheck disable=SC2086
"$PMUSIM" diff -- $storm -- $storm >/dev/null 2>&1 &
dpid=$!
i=0
while [ "$(storms)" -lt 3 ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill $dpid
wait $dpid
check "diff killed: status 143" [ $? = 143 ]
i=0
while [ "$(storms)" != 0 ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
check "diff killed: no run left" [ "$(storms)" = 0 ]
# two storms through the pipes, identical to their trace limit (the readers keep up in lockstep)
# shellcheck disable=SC2086
diffrun storm2 -- --trace-limit 2000000 $storm -- --trace-limit 2000000 $storm
check "two storms to 2 MB: identical" [ "$(status storm2)" = 0 ]

# Bad input: status 2, the file and the line.
head -c $(($(wc -c <"$T/x86_64-a.trace") - 10)) "$T/x86_64-a.trace" >"$T/cut.trace"
n=$(($(wc -l <"$T/cut.trace") + 1))
diffrun cut "$T/x86_64-a.trace" "$T/cut.trace"
check "truncated in a line: status 2" [ "$(status cut)" = 2 ]
check "truncated in a line: file and line $n" grep -q "^pmusim diff: $T/cut.trace:$n: the last line has no newline" "$T/cut.err"
head -n 5 "$T/x86_64-a.trace" >"$T/cut5.trace"
diffrun cut5 "$T/cut5.trace" "$T/x86_64-a.trace"
check "truncated at a line: status 2" [ "$(status cut5)" = 2 ]
check "truncated at a line: line 5, no exit line" grep -q "^pmusim diff: $T/cut5.trace:5: the trace ends without its exit line" "$T/cut5.err"
diffrun text "$SRC/README.md" "$T/x86_64-a.trace"
check "a text file: status 2" [ "$(status text)" = 2 ]
check "a text file: line 1" grep -q "^pmusim diff: $SRC/README.md:1: expected the cycle" "$T/text.err"
diffrun bin "$T/x86_64-a.trace" "$GUESTS/x86_64/trap.elf"
check "a binary file: status 2" [ "$(status bin)" = 2 ]
check "a binary file: line 1, a control byte" grep -q "^pmusim diff: $GUESTS/x86_64/trap.elf:1: a control byte 0x[01][0-9a-f]: not a text trace" "$T/bin.err"
{ head -n 2 "$T/x86_64-a.trace"; printf '1 cpu0 diag what=x msg=%05000d\n' 0; tail -n 1 "$T/x86_64-a.trace"; } >"$T/long.trace"
diffrun long "$T/x86_64-a.trace" "$T/long.trace"
check "an over-long line: status 2" [ "$(status long)" = 2 ]
check "an over-long line: line 3" grep -q "^pmusim diff: $T/long.trace:3: a line longer than 4096 bytes" "$T/long.err"
run "$T/trap" --trace "$T/trap.trace" "$GUESTS/x86_64/trap.elf"
sed '3s/ name=#BP / name=#BP bogus=1 /' "$T/trap.trace" >"$T/key.trace"
diffrun key "$T/trap.trace" "$T/key.trace"
check "an unknown key: status 2, line 3" grep -q "^pmusim diff: $T/key.trace:3: unknown key bogus for exception" "$T/key.err"
hexline=$(grep -n -m1 ' exception vector=0x6 ' "$T/trap.trace" | cut -d: -f1)
sed "${hexline}s/vector=0x6/vector=0x06/" "$T/trap.trace" >"$T/hex.trace"
diffrun hex "$T/trap.trace" "$T/hex.trace"
check "a non-canonical number: status 2, line $hexline" \
    grep -q "^pmusim diff: $T/hex.trace:$hexline: bad value of field vector" "$T/hex.err"
{ cat "$T/trap.trace"; tail -n 1 "$T/trap.trace"; } >"$T/after.trace"
diffrun after "$T/trap.trace" "$T/after.trace"
n=$(($(wc -l <"$T/trap.trace") + 1))
check "a line after the exit line: line $n" grep -q "^pmusim diff: $T/after.trace:$n: a line after the exit line" "$T/after.err"
diffrun missing "$T/trap.trace" "$T/no-such.trace"
check "a missing file: status 2" [ "$(status missing)" = 2 ]
diffrun badrun -- "$GUESTS/x86_64/trap.elf" -- "$T/no-such.elf"
check "a run that fails: status 2" [ "$(status badrun)" = 2 ]
check "a run that fails: its message shown" grep -q "no-such.elf" "$T/badrun.err"
check "a run that fails: RUN_B named" grep -q "^pmusim diff: RUN_B (pmusim run $T/no-such.elf) ended with status 2" "$T/badrun.err"
diffrun trace-opt -- --trace "$T/x.trace" "$GUESTS/x86_64/trap.elf" -- "$GUESTS/x86_64/trap.elf"
check "--trace in a run: status 2" [ "$(status trace-opt)" = 2 ]
check "--trace in a run: refused" grep -q "leave --trace out" "$T/trace-opt.err"
diffrun kind --ignore no-such-kind "$T/trap.trace" "$T/trap.trace"
check "--ignore of an unknown kind: status 2" [ "$(status kind)" = 2 ]
diffrun three "$T/trap.trace" "$T/trap.trace" "$T/trap.trace"
check "three traces: status 2" [ "$(status three)" = 2 ]

finish
