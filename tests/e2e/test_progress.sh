#!/bin/sh
# The progress line (README, "Running a guest"): on a terminal, stderr gets one line rewritten
# with a carriage return (simulated time, instructions, MIPS, the share of --max-cycles),
# erased before anything else is written there; never when stderr is a file, never with
# --quiet (which also drops the note that a limit ended the run).  The console, trace and
# --stats of a run with the line are those of a run without it.  The terminal is script(1)'s
# pseudo-terminal; the run on it is the echo guest fed live from it for a second and a half
# (so the line is drawn a few times, however fast the host), recorded, and replayed with
# stderr a file to compare.
. "$(dirname "$0")/lib.sh" "$@"

command -v script >/dev/null || { echo "script(1) is missing: skipped"; exit 77; }
DATA=$(dirname "$0")/data
RUN_TIMEOUT=300
CR=$(printf '\r')

asm_raw arm64 "$DATA/echo-arm64.S" "$T/echo.bin"
args="run --arch arm64 --load-addr 0x40080000 --max-cycles 1000000000000 --stats"

# tty NAME INPUT_DELAY OPTIONS...: the run with stdin, stdout and stderr on a pseudo-terminal
# that types EOT after INPUT_DELAY seconds; console and trace in $T/NAME.console and
# $T/NAME.trace, the terminal's bytes in $T/NAME.tty, the stats lines in $T/NAME.stats (what
# a line shows last: after its last carriage return)
tty() {
    name=$1 delay=$2
    shift 2
    (sleep "$delay"; printf '\004') | timeout -k 10 "$RUN_TIMEOUT" script -q -e -c \
        "$PMUSIM $args $* --console $T/$name.console --trace $T/$name.trace $T/echo.bin" "$T/$name.tty" >/dev/null
    echo $? >"$T/$name.status"
    sed -e '/^Script /d' -e "s/$CR\$//" -e "s/.*$CR//" "$T/$name.tty" | grep '^cpu' >"$T/$name.stats"
}

tty shown 1.6 --console-in stdin --record "$T/shown.log"
# shellcheck disable=SC2086 # $args: the options, split as written
run "$T/file" $args --console "$T/file.console" --trace "$T/file.trace" --replay "$T/shown.log" "$T/echo.bin"
grep '^cpu' "$T/file.err" >"$T/file.stats"
tty replayed 0 --replay "$T/shown.log"
tty quiet 0 --quiet --replay "$T/shown.log"
tty quietlimit 0 --quiet --max-insns 2000000 --replay "$T/shown.log"
# shellcheck disable=SC2086
run "$T/limit" $args --max-insns 2000000 --replay "$T/shown.log" "$T/echo.bin"

check "on a terminal: the guest's end (status 0)" [ "$(cat "$T/shown.status")" = 0 ]
check "on a terminal: the progress line" grep -q "${CR}pmusim: [0-9.]* s simulated, [0-9]* insns, [0-9.]* MIPS, [0-9]*% of --max-cycles" "$T/shown.tty"
check "on a terminal: rewritten in place (more than once)" [ "$(grep -o "${CR}pmusim: [0-9.]* s simulated" "$T/shown.tty" | wc -l)" -ge 2 ]
check "on a terminal: erased before the stats" grep -q "${CR}  *${CR}cpu0: insns=" "$T/shown.tty"
check "on a terminal: the stats" [ -s "$T/shown.stats" ]
check "stderr a file: no progress line" [ "$(grep -c 'MIPS' "$T/file.err")" = 0 ]
check "with and without the line: the same status" [ "$(cat "$T/file.status")" = 0 ]
check "with and without the line: the same console" cmp -s "$T/shown.console" "$T/file.console"
check "with and without the line: the same trace" cmp -s "$T/shown.trace" "$T/file.trace"
check "with and without the line: the same stats" cmp -s "$T/shown.stats" "$T/file.stats"
check "a limit: status 3" [ "$(cat "$T/limit.status")" = 3 ]
check "a limit: the note" grep -q "pmusim: run ended: max-insns (status 3)" "$T/limit.err"
check "the replay on a terminal: the progress line" grep -q "${CR}pmusim: [0-9.]* s simulated" "$T/replayed.tty"
check "the replay on a terminal: the same stats" cmp -s "$T/replayed.stats" "$T/file.stats"
check "--quiet: no progress line" [ "$(grep -c 'MIPS' "$T/quiet.tty")" = 0 ]
check "--quiet: the same stats" cmp -s "$T/quiet.stats" "$T/file.stats"
check "--quiet: the same trace" cmp -s "$T/quiet.trace" "$T/file.trace"
check "--quiet and a limit: status 3" [ "$(cat "$T/quietlimit.status")" = 3 ]
check "--quiet and a limit: no note" [ "$(grep -c 'run ended' "$T/quietlimit.tty")" = 0 ]
check "--quiet and a limit: the stats" [ "$(cat "$T/quietlimit.stats")" = "$(grep '^cpu' "$T/limit.err")" ]
finish
