#!/bin/sh
# --trace-json FILE (issue 14, item 3): Chrome trace-event JSON for Perfetto (docs/trace-format.md,
# "Perfetto JSON").  Every file is held by tests/e2e/check_trace_json.py to the format's rules
# (valid JSON, the keys of each phase, ts >= 0, B/E balanced and nested per thread, X dur >= 0,
# numeric counters, metadata for every thread) and to pmusim's own order per thread; the checker
# is first shown to fail on broken samples.  The runs: the watchdog on x86_64 and arm64 (NMIs,
# PMU counters), the ppc32 and arm64 oprofile guests (0xF00 / pseudo-NMI), the ftrace guest on
# all three architectures (code writes, patches) and a bad guest (a patch violation); each with
# --trace beside it, whose exception, interrupt and nmi lines must be as many as the slices, and
# twice, byte-identical.
. "$(dirname "$0")/lib.sh" "$@"

CHECK="python3 $SRC/tests/e2e/check_trace_json.py"
DATA=$SRC/tests/e2e/data/trace-json
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

# --- the checker: a good sample passes, every broken one fails with its reason
check "checker: the good sample passes" sh -c "$CHECK --ordered '$DATA/good.json' >/dev/null"
for f in "$DATA"/bad-*.json; do
    $CHECK "$f" >"$T/bad.out" 2>&1
    check "checker: $(basename "$f") fails (status 1)" [ $? = 1 ]
    check "checker: $(basename "$f") says why" grep -q "^$f: " "$T/bad.out"
done
check "checker: out-of-order events pass without --ordered" sh -c "$CHECK '$DATA/unordered.json' >/dev/null"
check "checker: and fail with it" sh -c "! $CHECK --ordered '$DATA/unordered.json' >/dev/null"

# jcount FILE EXPR: how many events of FILE make the Python expression EXPR (over `e`) true
jcount() {
    python3 -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if $2))" "$1"
}

# nested FILE OUTER INNER: how many slices named INNER begin while one named OUTER is the
# innermost open slice of their thread
nested() {
    python3 -c "import json,sys
stacks, n = {}, 0
for e in json.load(open(sys.argv[1]))['traceEvents']:
    st = stacks.setdefault(e.get('tid'), [])
    if e['ph'] == 'B':
        n += bool(st) and st[-1] == sys.argv[2] and e['name'] == sys.argv[3]
        st.append(e['name'])
    elif e['ph'] == 'E':
        st.pop()
print(n)" "$1" "$2" "$3"
}

# text_slices TRACE [KIND]: exception, interrupt and nmi lines (or KIND's) of a text trace
text_slices() {
    grep -cE "^[0-9]+ cpu[0-9]+ (${2:-exception|interrupt|nmi}) " "$1"
}

# json_run NAME ARGS...: the run with --trace and --trace-json, checked; then again, compared
json_run() {
    n=$1
    shift
    run "$T/$n" --trace "$T/$n.trace" --trace-json "$T/$n.json" "$@"
    check "$n: the JSON keeps the format's rules" sh -c "$CHECK --ordered '$T/$n.json' >'$T/$n.check'"
    check "$n: B and E as many as the text trace's entries ($(text_slices "$T/$n.trace"))" \
        grep -q " B=$(text_slices "$T/$n.trace") E=$(text_slices "$T/$n.trace") " "$T/$n.check"
    check "$n: the exit event is the last" sh -c "python3 -c \"import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; \
sys.exit(not [e for e in ev if e['ph'] == 'i'][-1]['name'] == 'exit')\" '$T/$n.json'"
    run "$T/$n.2" --trace "$T/$n.2.trace" --trace-json "$T/$n.2.json" "$@"
    check "$n: two runs, the same JSON bytes" cmp -s "$T/$n.json" "$T/$n.2.json"
    check "$n: the same status" cmp -s "$T/$n.status" "$T/$n.2.status"
}

# kind_count NAME KIND: instant events of KIND in NAME's JSON, against its text trace
kind_count() {
    check "$1: $2 instants as in the text trace" \
        [ "$(jcount "$T/$1.json" "e['ph'] == 'i' and e['name'] == '$2'")" = "$(grep -c "^[0-9]* [a-z0-9]* $2 " "$T/$1.trace")" ]
}

# --- the watchdog: NMIs nest in the CPU's track, the PMU's overflowing counter is a counter track
json_run x86wd --cpus 2 "$GUESTS/x86_64/watchdog.elf"
run "$T/x86wd.text" --cpus 2 --trace "$T/x86wd.text.trace" "$GUESTS/x86_64/watchdog.elf"
check "x86wd: the text trace is the same without --trace-json" cmp -s "$T/x86wd.trace" "$T/x86wd.text.trace"
check "x86wd: NMI slices" [ "$(jcount "$T/x86wd.json" "e['ph'] == 'B' and e['cat'] == 'nmi'")" = "$(text_slices "$T/x86wd.trace" nmi)" ]
check "x86wd: cpu 1's NMI slice starts in lockup_spin" \
    [ "$(jcount "$T/x86wd.json" "e['ph'] == 'B' and e['tid'] == 1 and e['cat'] == 'nmi' and e['args']['sym'].startswith('lockup_spin')")" -ge 1 ]
check "x86wd: IA32_FIXED_CTR1 counts on both CPUs" [ "$(jcount "$T/x86wd.json" \
    "e['ph'] == 'C' and e['args'].get('IA32_FIXED_CTR1', 0) > 0 and e['name'] == 'cpu%d' % e['tid']")" -ge 2 ]
check "x86wd: counters after every pmu-overflow" [ "$(jcount "$T/x86wd.json" "e['ph'] == 'C'")" -ge \
    "$(grep -c pmu-overflow "$T/x86wd.trace")" ]
kind_count x86wd pmu-overflow
kind_count x86wd cpu-start
check "x86wd: a track per CPU and the machine's" [ "$(jcount "$T/x86wd.json" "e['ph'] == 'M' and e['name'] == 'thread_name'")" = 3 ]
check "x86wd: the process is the board" grep -q '"name":"process_name","args":{"name":"pmusim pc (x86_64)"}' "$T/x86wd.json"
# ts is cycles * 10^9 / clock in exact decimals: the first NMI's cycle in the text trace
cyc=$(grep -m1 ' nmi ' "$T/x86wd.trace" | cut -d' ' -f1)
hz=$(sed -n 's/.*"clock-hz":"\([0-9]*\)".*/\1/p' "$T/x86wd.json")
ts=$(python3 -c "import sys; ns = int(sys.argv[1]) * 10**9 // int(sys.argv[2]); print('%d.%03d' % (ns // 1000, ns % 1000))" "$cyc" "$hz")
check "x86wd: the first NMI at ts $ts (cycle $cyc, $hz Hz)" grep -q "\"ph\":\"B\",\"pid\":1,\"tid\":[0-9]*,\"ts\":$ts,\"name\":\"NMI\"" "$T/x86wd.json"

json_run a64wd --cpus 2 "$GUESTS/arm64/watchdog.elf"
check "a64wd: interrupt slices" [ "$(jcount "$T/a64wd.json" "e['ph'] == 'B' and e['cat'] == 'interrupt'")" -ge 4 ]
check "a64wd: PMCCNTR_EL0 counts" [ "$(jcount "$T/a64wd.json" "e['ph'] == 'C' and e['args'].get('PMCCNTR_EL0', 0) > 0")" -ge 2 ]
check "a64wd: every slice ends at an ERET" [ "$(jcount "$T/a64wd.json" "e['ph'] == 'E' and 'pc' in e.get('args', {})")" = \
    "$(text_slices "$T/a64wd.trace")" ]

# --- oprofile: every 0xF00 performance-monitor exception is a slice; PMC1 a counter
json_run ppcop "$GUESTS/ppc32/oprofile.elf"
check "ppcop: 0xF00 slices as in the text trace" [ "$(jcount "$T/ppcop.json" "e['ph'] == 'B' and e['args']['vector'] == '0xf00'")" = \
    "$(grep -c ' interrupt vector=0xf00 ' "$T/ppcop.trace")" ]
check "ppcop: they are named by the vector" grep -q '"ph":"B",[^{]*"name":"interrupt 0xf00","cat":"interrupt"' "$T/ppcop.json"
check "ppcop: PMC1 counts" [ "$(jcount "$T/ppcop.json" "e['ph'] == 'C' and e['args'].get('PMC1', 0) > 0")" -ge 1 ]
check "ppcop: 0xF00 nests inside the system call's 0xC00" [ "$(nested "$T/ppcop.json" "exception 0xc00" "interrupt 0xf00")" -ge 1 ]
json_run a64op "$GUESTS/arm64/oprofile.elf"
check "a64op: pseudo-NMIs nest inside the masked system call (irq in sync)" [ "$(nested "$T/a64op.json" sync irq)" -ge 1 ]

# --- code writes and patches on every architecture; a patch violation
for a in $ARCHES; do
    json_run "ft-$a" --cpus 2 --strict "$GUESTS/$a/ftrace.elf"
    kind_count "ft-$a" code-write
    kind_count "ft-$a" patch
    check "ft-$a: code writes seen" [ "$(grep -c ' code-write ' "$T/ft-$a.trace")" -ge 1 ]
done
json_run bad --check-patching "$GUESTS/x86_64/bad-non-site.elf"
kind_count bad patch-violation
check "bad: a violation seen" [ "$(grep -c ' patch-violation ' "$T/bad.trace")" -ge 1 ]

# --- a storm of exceptions whose handler never returns (tests/e2e/data/runaway-x86_64.S, its
# #UD handler retires one instruction and faults again): the slices nest 64 deep, then the open
# ones end before the next begins; those open at --max-insns end with the exit event
if as --64 --defsym HANDLER=0x100140 -o "$T/storm.o" "$SRC/tests/e2e/data/runaway-x86_64.S" 2>/dev/null &&
    objcopy -O binary "$T/storm.o" "$T/storm.bin"; then
    json_run storm --max-insns 20000 --arch x86_64 --load-addr 0x100000 "$T/storm.bin"
    check "storm: thousands of exceptions" [ "$(text_slices "$T/storm.trace")" -ge 1000 ]
    check "storm: no exception-return at all" sh -c "! grep -q exception-return '$T/storm.trace'"
    depth=$(python3 -c "import json,sys
d = m = 0
for e in json.load(open(sys.argv[1]))['traceEvents']:
    d += {'B': 1, 'E': -1}.get(e['ph'], 0)
    m = max(m, d)
print(m)" "$T/storm.json")
    check "storm: 64 slices deep at most ($depth)" [ "$depth" = 64 ]
else
    fail "storm: cannot assemble tests/e2e/data/runaway-x86_64.S"
fi

# --- alone, with --trace-limit: the run ends there and the file is whole
run "$T/lim" --cpus 2 --trace-limit 100000 --trace-json "$T/lim.json" "$GUESTS/x86_64/watchdog.elf"
check "limit: exit status 3" [ "$(cat "$T/lim.status")" = 3 ]
check "limit: the file keeps the rules" sh -c "$CHECK --ordered '$T/lim.json' >/dev/null"
check "limit: at most 100000 bytes with its end" [ "$(wc -c <"$T/lim.json")" -le 100000 ]
check "limit: its exit event says why" grep -q '"reason":"trace-limit"' "$T/lim.json"
check "limit: stderr names --trace-json" grep -q "^pmusim: --trace-json $T/lim.json: " "$T/lim.err"

# --- a fatal signal in pmusim: what was written so far, ended so that it parses (the buffer only
# holds whole lines).  Wherever the signal lands, the file must be JSON.  Not under the
# sanitizers, which install no fatal-signal handler (sim/main.c).
if [ -z "${PMUSIM_SANITIZED:-}" ]; then
    "$PMUSIM" run --trace-json "$T/seg.json" "$GUESTS/ppc32/oprofile.elf" >/dev/null 2>&1 &
    pid=$!
    sleep 1
    kill -SEGV $pid 2>/dev/null
    wait $pid
    st=$?
    check "SIGSEGV: the run died of it, or had ended ($st)" sh -c "[ $st = 139 ] || [ $st = 1 ]"
    check "SIGSEGV: the file is there and parses" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/seg.json"
fi

# --- bad outputs
run "$T/same" --trace-json "$GUESTS/x86_64/hello.elf" "$GUESTS/x86_64/hello.elf"
check "an input as --trace-json: status 2" [ "$(cat "$T/same.status")" = 2 ]
check "an input as --trace-json: named" grep -q -- "--trace-json" "$T/same.err"
run "$T/dir" --trace-json "$T/no/such/dir/t.json" "$GUESTS/x86_64/hello.elf"
check "an unwritable --trace-json: status 2" [ "$(cat "$T/dir.status")" = 2 ]
if [ -e /dev/full ]; then
    run "$T/full" --trace-json /dev/full "$GUESTS/x86_64/hello.elf"
    check "a write error on --trace-json: status 7" [ "$(cat "$T/full.status")" = 7 ]
    check "a write error on --trace-json: named" grep -q -- "--trace-json /dev/full" "$T/full.err"
fi

finish
