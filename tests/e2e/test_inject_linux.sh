#!/bin/sh
# Fault injection against a real kernel's hard-lockup detector: Debian's arm64 6.12 (the buddy
# detector, CONFIG_HARDLOCKUP_DETECTOR_BUDDY; docs/debugging.md "Fault injection").  CPU 1 stalls
# from cycle 2 * 10^9 on; with watchdog_thresh=1 CPU 0's hrtimer checks it every 1.2 s and
# reports it within two checks.  `rootwait` keeps the kernel waiting for a root device instead
# of panicking.  Two runs side by side give the same bytes.  (With a stall at 10^9 instead the
# console stops mid-line at 0.77 s and no report shows: CPU 1 was likely printing for both, the
# console is its until it goes on; not looked into further.)  The kernel is the fetched Debian
# kernel (need_linux_image, lib.sh); without it the test is skipped (status 77).
. "$(dirname "$0")/lib.sh" "$@"

need_linux_image arm64
IMAGE=$LINUX_IMAGE
C=2000000000
APPEND="console=ttyAMA0,1500000 watchdog_thresh=1 root=/dev/vda rootwait"
for r in a b; do
    run "$T/$r" --kernel "$IMAGE" --append "$APPEND" --cpus 2 --inject stall:cpu=1:cycle=$C \
        --max-cycles 5000000000 --stats --quiet --trace "$T/$r.trace" &
done
wait
tr -d '\r' <"$T/a.out" >"$T/a.txt"          # the kernel's console ends lines with CR LF
check "linux: the kernel reports the lockup of cpu 1" grep -q 'watchdog: Watchdog detected hard LOCKUP on cpu 1$' "$T/a.txt"
check "linux: run ended by the limit (status 3)" [ "$(cat "$T/a.status")" = 3 ]
check "linux: cpu 1 stalled at the end" grep -q '^cpu1: .* exit=stalled$' "$T/a.err"
at=$(awk '$2 == "cpu1" && $3 == "inject" { print $1 }' "$T/a.trace")
check "linux: the stall began at or after cycle $C ($at)" [ "${at:-0}" -ge $C ]
for f in out err trace status; do
    check "linux: determinism: $f identical" cmp -s "$T/a.$f" "$T/b.$f"
done
sed -n 's/^\[ *\([0-9.]*\)\] watchdog: Watchdog detected hard LOCKUP.*/linux: reported at \1 s of the guest clock/p' "$T/a.txt"
finish
