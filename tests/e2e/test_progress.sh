#!/bin/sh
# The progress line (README, "Running a guest"): on a terminal, stderr gets one line rewritten
# with a carriage return (simulated time, instructions, MIPS, the share of --max-insns), erased
# before the run's last messages; never when stderr is a file, never with --quiet (which also
# drops the note that a limit ended the run).  The console, trace and --stats of a run with the
# line are those of a run without it.  The terminal is script(1)'s pseudo-terminal.
. "$(dirname "$0")/lib.sh" "$@"

command -v script >/dev/null || { echo "script(1) is missing: skipped"; exit 77; }
DATA=$(dirname "$0")/data
RUN_TIMEOUT=300
CR=$(printf '\r')

# The echo guest polling an empty receiver: a run of 40 million instructions (a second or more
# of host time, the line comes every half second).
asm_raw arm64 "$DATA/echo-arm64.S" "$T/echo.bin"
args="run --arch arm64 --load-addr 0x40080000 --console-in /dev/null --max-insns 40000000 --stats"

# tty NAME [OPTIONS...]: the run with stderr (and stdout) on a pseudo-terminal; its console and
# trace in $T/NAME.console and $T/NAME.trace, the terminal's bytes in $T/NAME.tty
tty() {
    name=$1
    shift
    timeout -k 10 "$RUN_TIMEOUT" script -q -e -c "$PMUSIM $args $* --console $T/$name.console --trace $T/$name.trace $T/echo.bin" \
        "$T/$name.tty" </dev/null >/dev/null
    echo $? >"$T/$name.status"
    sed -n '/^Script started/d; /^Script done/d; p' "$T/$name.tty" | tr -d '\r' | grep '^cpu' >"$T/$name.stats"
}

tty shown
# shellcheck disable=SC2086 # $args: the options, split as written
run "$T/file" $args --console "$T/file.console" --trace "$T/file.trace" "$T/echo.bin"
grep '^cpu' "$T/file.err" >"$T/file.stats"
tty quiet --quiet

check "on a terminal: status 3" [ "$(cat "$T/shown.status")" = 3 ]
check "on a terminal: the progress line" grep -q "${CR}pmusim: [0-9.]* s simulated, [0-9]* insns, [0-9.]* MIPS, [0-9]*% of --max-insns" "$T/shown.tty"
check "on a terminal: rewritten in place (more than once)" [ "$(grep -o "${CR}pmusim: [0-9.]* s simulated" "$T/shown.tty" | wc -l)" -ge 2 ]
check "on a terminal: erased before the run's note" grep -q "${CR}  *${CR}pmusim: run ended: max-insns (status 3)" "$T/shown.tty"
check "on a terminal: the stats" [ -s "$T/shown.stats" ]
check "stderr a file: no progress line" [ "$(grep -c 'MIPS' "$T/file.err")" = 0 ]
check "stderr a file: the note" grep -q "pmusim: run ended: max-insns (status 3)" "$T/file.err"
check "with and without the line: the same console" cmp -s "$T/shown.console" "$T/file.console"
check "with and without the line: the same trace" cmp -s "$T/shown.trace" "$T/file.trace"
check "with and without the line: the same stats" cmp -s "$T/shown.stats" "$T/file.stats"
check "--quiet: status 3" [ "$(cat "$T/quiet.status")" = 3 ]
check "--quiet: no progress line" [ "$(grep -c 'MIPS' "$T/quiet.tty")" = 0 ]
check "--quiet: no note" [ "$(grep -c 'run ended' "$T/quiet.tty")" = 0 ]
check "--quiet: the stats" cmp -s "$T/quiet.stats" "$T/file.stats"
check "--quiet: the same trace" cmp -s "$T/quiet.trace" "$T/file.trace"
finish
