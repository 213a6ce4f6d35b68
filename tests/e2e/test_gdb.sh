# test_gdb.sh — Debian's gdb-multiarch drives pmusim's GDB stub (--gdb, docs/debugging.md) on the
# three architectures: a breakpoint in the PMU interrupt handler, the counter registers read
# there, exact steps, a watchpoint on a patched ftrace call site, a client that leaves in the
# middle of a packet, and the determinism promise: a run with stops gives the same bytes as one
# without.
. "$(dirname "$0")/lib.sh" "$@"
command -v gdb-multiarch >/dev/null || { echo "SKIP: gdb-multiarch not installed"; exit 77; }

SOCK=$T/gdb.sock

# debug NAME GDB-COMMANDS-FILE PMUSIM-ARGS...: pmusim waits for gdb on $SOCK; gdb runs the file
debug() {
    _name=$1 _cmds=$2
    shift 2
    rm -f "$SOCK"
    timeout -k 10 300 "$PMUSIM" run --gdb "unix:$SOCK" --gdb-wait "$@" >"$T/$_name.out" 2>"$T/$_name.err" &
    _pid=$!
    for _i in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
    timeout -k 10 300 gdb-multiarch -batch -nx -ex "set pagination off" -ex "set confirm off" \
        -ex "target remote $SOCK" -x "$_cmds" >"$T/$_name.gdb" 2>&1
    wait $_pid
    echo $? >"$T/$_name.status"
}

# pair NAME GDB-COMMANDS-FILE OPTION EXT PMUSIM-ARGS...: the debugged run (OPTION $T/NAME.EXT) and
# the plain one (OPTION $T/NAME-plain.EXT): the same --stats, console and output bytes
pair() {
    _p=$1 _pc=$2 _po=$3 _px=$4
    shift 4
    debug "$_p" "$_pc" --stats "$_po" "$T/$_p.$_px" "$@"
    run "$T/$_p-plain" --stats "$_po" "$T/$_p-plain.$_px" "$@"
    grep '^cpu' "$T/$_p-plain.err" >"$T/$_p-plain.stats"
    check "$_p: same --stats with stops" sh -c "grep '^cpu' '$T/$_p.err' | cmp -s - '$T/$_p-plain.stats'"
    check "$_p: same $_px with stops" cmp -s "$T/$_p.$_px" "$T/$_p-plain.$_px"
    check "$_p: same console with stops" cmp -s "$T/$_p.out" "$T/$_p-plain.out"
}

# --- x86_64: the NMI watchdog's PMU handler --------------------------------------------------
cat >"$T/x86.cmd" <<EOF
file $GUESTS/x86_64/watchdog.elf
break perf_event_nmi_handler
continue
info threads
monitor pmu
monitor apic
monitor checkpoint $T/mid.ck
p/x \$fs_base
p \$pc
stepi
stepi
p \$pc
delete
continue
EOF
pair x86 "$T/x86.cmd" --trace trace --cpus 2 "$GUESTS/x86_64/watchdog.elf"
check "x86: breakpoint in the NMI handler" grep -q "hit Breakpoint 1, perf_event_nmi_handler" "$T/x86.gdb"
check "x86: two threads, one per CPU" grep -q "Thread 2 (cpu1" "$T/x86.gdb"
check "x86: monitor pmu shows the NMI watchdog's counter" grep -q "IA32_FIXED_CTR1 .*counts=cycles interrupt next-overflow-in=" "$T/x86.gdb"
check "x86: monitor apic" grep -q "cpu1 id=0x[0-9a-f]* tpr=0x[0-9a-f]* svr=" "$T/x86.gdb"
check "x86: two steps, two instructions on" grep -q "perf_event_nmi_handler+[1-9]" "$T/x86.gdb"
check "x86: gdb saw the exit status" grep -q "exited with code 01" "$T/x86.gdb"
check "x86: monitor checkpoint mid-quantum waits for the boundary" grep -q "mid.ck will be written at the next quantum boundary" "$T/x86.gdb"
run "$T/x86-mid" --cpus 2 --stats --restore "$T/mid.ck" "$GUESTS/x86_64/watchdog.elf"
check "x86: the mid-run checkpoint restores to the same end" cmp -s "$T/x86-mid.err" "$T/x86-plain.stats"

# --- arm64: the pseudo-NMI PMU interrupt handler ---------------------------------------------
cat >"$T/a64.cmd" <<EOF
file $GUESTS/arm64/watchdog.elf
break armv8pmu_handle_irq
continue
p/x \$pmccntr_el0
p/x \$pmcr_el0
p/x \$pmintenset_el1
p/x \$elr_el1
monitor gic
monitor pmu
stepi 200
info registers pc
delete
continue
EOF
pair a64 "$T/a64.cmd" --trace trace --cpus 2 "$GUESTS/arm64/watchdog.elf"
check "arm64: breakpoint in the PMU IRQ handler" grep -q "hit Breakpoint 1, armv8pmu_handle_irq" "$T/a64.gdb"
check "arm64: PMCR_EL0 (IMP 0x41, E set)" grep -q '^\$2 = 0x410.*[13579bdf]$' "$T/a64.gdb"
check "arm64: PMINTENSET_EL1 has the cycle counter" grep -q '^\$3 = 0x80000000$' "$T/a64.gdb"
check "arm64: monitor gic shows the PMU PPI at NMI priority" grep -q " 23:0x20:" "$T/a64.gdb"
check "arm64: monitor pmu" grep -q "PMCCNTR_EL0 .*counts=cycles" "$T/a64.gdb"

# --- ppc32: oprofile's 0xF00 handler ---------------------------------------------------------
cat >"$T/ppc.cmd" <<EOF
file $GUESTS/ppc32/oprofile.elf
hbreak performance_monitor_exception
continue
p/x \$mmcr0
p/x \$pmc1
p/x \$siar
p/x \$srr0
stepi
stepi
stepi
p \$pc
delete
continue
EOF
pair ppc "$T/ppc.cmd" --samples samples "$GUESTS/ppc32/oprofile.elf"
check "ppc32: hardware breakpoint (Z1) in the 0xF00 handler" grep -q "Breakpoint 1, performance_monitor_exception" "$T/ppc.gdb"
check "ppc32: it was a Z1" grep -q "Hardware assisted breakpoint 1 at" "$T/ppc.gdb"
check "ppc32: MMCR0 has PMC1CE, no PMXE (taken)" grep -q '^\$1 = 0x9.*8.$' "$T/ppc.gdb"
check "ppc32: PMC1 negative" grep -q '^\$2 = 0x8' "$T/ppc.gdb"
check "ppc32: SIAR" grep -q '^\$3 = 0x10' "$T/ppc.gdb"
check "ppc32: three steps" grep -q "performance_monitor_exception+12" "$T/ppc.gdb"

# --- reverse execution (bs, bc: time travel, docs/debugging.md) -------------------------------
# reverse TAG ELF EVENT HANDLER CALLEE ARGS...: the plain run first (its trace names the
# interrupt's vector, `to`, and the interrupted instructions, `from`); then gdb: reverse-continue
# at the start (no history), a breakpoint on the vector and one reverse-stepi (back on the
# interrupted instruction), the handler's first hit's counters, two hits on, reverse-continue
# twice (back at the first hit: the same counters), reverse-finish from a callee of the handler
# (back in the handler), continue to the end: the same bytes as the run without gdb.
reverse() {
    _r=$1 _elf=$2 _ev=$3 _h=$4 _callee=$5
    shift 5
    run "$T/$_r-plain" --stats --trace "$T/$_r-plain.trace" "$@" "$_elf"
    grep '^cpu' "$T/$_r-plain.err" >"$T/$_r-plain.stats"
    _to=$(sed -n "s/^[0-9]* cpu[0-9]* $_ev .* to=\\(0x[0-9a-f]*\\) .*/\\1/p" "$T/$_r-plain.trace" | head -n 1)
    cat >"$T/$_r.cmd" <<EOF
file $_elf
reverse-continue
break *$_to
continue
p/x \$pc
reverse-stepi
echo ==from==\\n
p/x \$pc
delete
break $_h
continue
echo ==first==\\n
monitor pmu
echo ==end==\\n
continue
continue
reverse-continue
reverse-continue
echo ==back==\\n
monitor pmu
echo ==end==\\n
break $_callee
continue
reverse-finish
echo ==finished==\\n
p \$pc
delete
continue
EOF
    debug "$_r" "$T/$_r.cmd" --stats --trace "$T/$_r.trace" "$@" "$_elf"
    _from=$(sed -n '/^==from==/{n;s/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p}' "$T/$_r.gdb")
    check "$_r: reverse-continue at the start: no history" grep -q "No more reverse-execution history" "$T/$_r.gdb"
    check "$_r: reverse-stepi from the vector $_to lands on an interrupted instruction ($_from)" \
        grep -q " $_ev .* from=$_from .* to=$_to " "$T/$_r-plain.trace"
    sed -n '/^==first==/,/^==end==/p' "$T/$_r.gdb" | tail -n +2 >"$T/$_r.first"
    sed -n '/^==back==/,/^==end==/p' "$T/$_r.gdb" | tail -n +2 >"$T/$_r.back"
    check "$_r: reverse-continue twice: back at the first hit (the same counters)" \
        sh -c "grep -q 'cpu0 insns=' '$T/$_r.first' && cmp -s '$T/$_r.first' '$T/$_r.back'"
    check "$_r: five stops at $_h (three forward, two backward)" \
        test "$(grep -c "Breakpoint 2, $_h" "$T/$_r.gdb")" -ge 5
    check "$_r: reverse-finish from $_callee: back in $_h" \
        sh -c "sed -n '/^==finished==/{n;p}' '$T/$_r.gdb' | grep -q '<$_h+[0-9]*>'"
    check "$_r: gdb saw the end" grep -q "Inferior 1 (Remote target) exited" "$T/$_r.gdb"
    check "$_r: same --stats after reverse execution" sh -c "grep '^cpu' '$T/$_r.err' | cmp -s - '$T/$_r-plain.stats'"
    check "$_r: same trace after reverse execution" cmp -s "$T/$_r.trace" "$T/$_r-plain.trace"
    check "$_r: same console after reverse execution" cmp -s "$T/$_r.out" "$T/$_r-plain.out"
}
reverse rx86 "$GUESTS/x86_64/watchdog.elf" nmi perf_event_nmi_handler intel_pmu_handle_irq --cpus 2
reverse ra64 "$GUESTS/arm64/watchdog.elf" interrupt armv8pmu_handle_irq armpmu_event_set_period --cpus 2
reverse rppc "$GUESTS/ppc32/oprofile.elf" interrupt performance_monitor_exception fsl7450_handle_interrupt

# --- a watchpoint on a patched call site: it stops right after the patching store -----------
site=$(nm "$GUESTS/x86_64/ftrace.elf" | sed -n 's/^\([0-9a-f]*\) t mix$/\1/p')
cat >"$T/watch.cmd" <<EOF
file $GUESTS/x86_64/ftrace.elf
watch *(unsigned char *)(0x$site + 1)
continue
bt 2
continue
delete
continue
EOF
pair watch "$T/watch.cmd" --trace trace --check-patching "$GUESTS/x86_64/ftrace.elf"
check "watch: hit at the patching store" grep -q "^poke_bytes .*addr=$((0x$site))" "$T/watch.gdb"
check "watch: hit twice (nop, then the trampoline call)" test "$(grep -c 'Hardware watchpoint 1: ' "$T/watch.gdb")" -ge 3
check "watch: same patching summary" sh -c "grep -v '^pmusim: --gdb' '$T/watch.err' | cmp -s - '$T/watch-plain.err'"

# arm64 and ppc32: a watch on the first word of mix that ftrace patches (its first code-write in
# the plain run's trace): gdb stops in the function that stored it, as the trace names it
for a in arm64 ppc32; do
    run "$T/ft-$a" --check-patching --trace "$T/ft-$a.trace" "$GUESTS/$a/ftrace.elf"
    line=$(grep -m1 ' code-write addr=0x[0-9a-f]* at=mix[+ ]' "$T/ft-$a.trace")
    waddr=$(echo "$line" | sed 's/.* addr=\(0x[0-9a-f]*\) .*/\1/')
    wfn=$(echo "$line" | sed 's/.* sym=\([A-Za-z_0-9]*\).*/\1/')
    cat >"$T/watch-$a.cmd" <<EOF
file $GUESTS/$a/ftrace.elf
watch *(unsigned int *)$waddr
continue
bt 1
delete
continue
EOF
    pair watch-$a "$T/watch-$a.cmd" --trace trace --check-patching "$GUESTS/$a/ftrace.elf"
    check "watch $a: a patched word of mix found in the trace ($waddr by $wfn)" [ -n "$waddr" ] && [ -n "$wfn" ]
    # the word the patch wrote, as gdb prints it (a 32-bit integer in the guest's byte order)
    nb=$(echo "$line" | sed 's/.* new=\([0-9a-f]*\) .*/\1/')
    [ $a = arm64 ] && nb=$(echo "$nb" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')
    check "watch $a: stopped by the patching store, New value = 0x$nb" grep -q "^New value = $((0x$nb))\$" "$T/watch-$a.gdb"
    check "watch $a: the hit reported" test "$(grep -c 'Hardware watchpoint 1: ' "$T/watch-$a.gdb")" -ge 2
done

# --- a client that leaves in the middle of a packet; malformed packets ----------------------
rm -f "$SOCK"
timeout -k 10 300 "$PMUSIM" run --stats --gdb "unix:$SOCK" --gdb-wait "$GUESTS/x86_64/watchdog.elf" \
    >"$T/cut.out" 2>"$T/cut.err" &
pid=$!
for i in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
python3 - "$SOCK" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"$qSupported#00")          # a bad checksum
time.sleep(0.2)
s.sendall(b"xyz")                     # bytes outside a packet
s.sendall(b"$m100000,4")               # and away, mid-packet
time.sleep(0.2)
s.close()
EOF
wait $pid
echo $? >"$T/cut.status"
run "$T/cut-plain" --stats "$GUESTS/x86_64/watchdog.elf"
check "disconnect: bad checksum named" grep -q "refused: packet at offset 0: checksum 00, payload sums to" "$T/cut.err"
check "disconnect: stray bytes named" grep -q "refused: byte 0x78 outside a packet" "$T/cut.err"
check "disconnect: mid-packet named" grep -q "the client left in the middle of the packet at offset" "$T/cut.err"
check "disconnect: the run went on to its end" sh -c "grep '^cpu' '$T/cut.err' | cmp -s - '$T/cut-plain.err'"
check "disconnect: same exit status" cmp -s "$T/cut.status" "$T/cut-plain.status"

# --- a raw client over TCP: no-ack mode, monitor checkpoint, Ctrl-C at a quantum boundary, detach
port=$((20000 + $$ % 20000))
timeout -k 10 300 "$PMUSIM" run --cpus 2 --stats --trace "$T/raw.trace" --gdb "tcp::$port" --gdb-wait \
    "$GUESTS/x86_64/watchdog.elf" >"$T/raw.out" 2>"$T/raw.err" &
pid=$!
nmi=$(nm "$GUESTS/x86_64/watchdog.elf" | sed -n 's/^0*\([0-9a-f]*\) t perf_event_nmi_handler$/\1/p')
timeout -k 5 120 python3 - "$port" "$T/start.ck" "$nmi" >"$T/raw.log" 2>&1 <<'EOF2'
import socket, sys, time
def packet(p):
    return b"$" + p + b"#%02x" % (sum(p) & 0xff)
for i in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        break
    except OSError:
        time.sleep(0.1)
buf = b""
def reply():
    global buf
    while b"#" not in buf or len(buf) < buf.index(b"#") + 3:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("pmusim closed the connection")
        buf += chunk
    start = buf.index(b"$")
    end = buf.index(b"#", start)
    body, buf = buf[start + 1:end], buf[end + 3:]
    return body
def ask(p):
    s.sendall(packet(p))
    r = reply()
    while r.startswith(b"O") and r != b"OK":
        print("output", bytes.fromhex(r[1:].decode()).decode().strip())
        r = reply()
    print(p.decode()[:24], "->", r.decode()[:120])
    return r
ask(b"qSupported:swbreak+")
ask(b"QStartNoAckMode")
ask(b"?")
ask(b"bc")
ask(b"qRcmd," + ("checkpoint " + sys.argv[2]).encode().hex().encode())
ask(b"qRcmd," + b"bogus".hex().encode())
ask(b"qRcmd," + b"trace off".hex().encode())
ask(b"Z0," + sys.argv[3].encode() + b",1")
s.sendall(packet(b"vCont;c"))
print("stop", reply().decode())
ask(b"z0," + sys.argv[3].encode() + b",1")
s.sendall(packet(b"vCont;c"))
time.sleep(0.3)
s.sendall(b"\x03")
print("stop", reply().decode())
ask(b"bs")
ask(b"qC")
ask(b"D")
s.close()
EOF2
wait $pid
run "$T/raw-plain" --cpus 2 --stats --trace "$T/raw-plain.trace" "$GUESTS/x86_64/watchdog.elf"
run "$T/raw-rest" --cpus 2 --stats --restore "$T/start.ck" "$GUESTS/x86_64/watchdog.elf"
check "raw: qSupported" grep -q "^qSupported:swbreak+ -> PacketSize=4000;qXfer:features:read+;vContSupported+" "$T/raw.log"
check "raw: qSupported offers reverse execution" grep -q "^qSupported:swbreak+ -> .*;ReverseStep+;ReverseContinue+" "$T/raw.log"
check "raw: bc at the start: the start of history" grep -q "^bc -> T05replaylog:begin;thread:1;" "$T/raw.log"
check "raw: no-ack mode" grep -q "^QStartNoAckMode -> OK" "$T/raw.log"
check "raw: stopped before the first instruction" grep -q "^? -> T05thread:1;" "$T/raw.log"
check "raw: monitor checkpoint at a boundary" grep -q "output checkpoint written to .*start.ck at cycle 0" "$T/raw.log"
check "raw: unknown monitor command named" grep -q "output unknown monitor command 'bogus'" "$T/raw.log"
check "raw: a Z0 breakpoint's stop says swbreak" grep -q "^stop T05swbreak:;thread:" "$T/raw.log"
check "raw: Ctrl-C stops with SIGINT" grep -q "^stop T02thread:" "$T/raw.log"
check "raw: bs at a Ctrl-C stop (a quantum boundary): one instruction back" grep -q "^bs -> T05thread:" "$T/raw.log"
check "raw: detach" grep -q "^D -> OK" "$T/raw.log"
check "raw: monitor trace off" grep -q "output trace off" "$T/raw.log"
check "raw: with the trace off only its exit line is written" sh -c \
    "test \$(wc -l <'$T/raw.trace') -lt 3 && test \$(wc -l <'$T/raw-plain.trace') -gt 100 && test \"\$(tail -n 1 '$T/raw-plain.trace')\" = \"\$(tail -n 1 '$T/raw.trace')\""
check "raw: the run went on after the detach" sh -c "grep '^cpu' '$T/raw.err' | cmp -s - '$T/raw-plain.err'"
check "raw: the checkpoint restores to the same end" cmp -s "$T/raw-rest.err" "$T/raw-plain.err"
check "raw: same console" cmp -s "$T/raw.out" "$T/raw-plain.out"

# --- bad --gdb devices ------------------------------------------------------------------------
run "$T/bad1" --gdb tcp::99999 "$GUESTS/x86_64/watchdog.elf"
check "--gdb tcp::99999 refused" grep -q -- "--gdb tcp::99999: the port must be a number from 1 to 65535" "$T/bad1.err"
check "--gdb bad port: status 2" test "$(cat "$T/bad1.status")" = 2
run "$T/bad2" --gdb serial:/dev/null "$GUESTS/x86_64/watchdog.elf"
check "--gdb serial: refused" grep -q "expected tcp::PORT, tcp:HOST:PORT or unix:PATH" "$T/bad2.err"
run "$T/bad3" --gdb-wait "$GUESTS/x86_64/watchdog.elf"
check "--gdb-wait alone refused" grep -q -- "--gdb-wait needs --gdb" "$T/bad3.err"
check "--gdb-wait alone: status 2" test "$(cat "$T/bad3.status")" = 2
run "$T/bad4" --gdb "unix:$T/no/such/dir/s" "$GUESTS/x86_64/watchdog.elf"
check "--gdb unix: unbindable path named" grep -q -- "--gdb unix:$T/no/such/dir/s: cannot bind: No such file or directory" "$T/bad4.err"
finish
