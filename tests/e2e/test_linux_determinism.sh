#!/bin/sh
# Determinism of a real kernel (issue 15, item 6): Debian's arm64 kernel with the project's
# initramfs through a short scenario (the tracefs and perf steps of guest/linux/init.c, to its
# power-off), run twice on 1 CPU and twice on 4: the console, the trace and --stats are the same
# bytes each time; and a checkpoint taken mid-boot on 4 CPUs restores and continues to the same
# end (its console the uninterrupted run's tail, the same --stats).  Needs the fetched kernel
# (need_linux_image, lib.sh).
. "$(dirname "$0")/lib.sh" "$@"

need_linux_image arm64
CPIO=$GUESTS/arm64/initramfs.cpio
[ -f "$CPIO" ] || { echo "SKIP: $CPIO not built"; exit 77; }
APPEND="console=ttyAMA0,1500000 -- tracefs perf"
boot() {            # boot NAME CPUS [OPTIONS...]
    _n=$1 _c=$2
    shift 2
    RUN_TIMEOUT=1800 run "$T/$_n" --kernel "$LINUX_IMAGE" --initrd "$CPIO" --cpus "$_c" --append "$APPEND" \
        --stats --quiet "$@"
}

for c in 1 4; do
    boot "c$c.a" $c --trace "$T/c$c.a.trace"
    boot "c$c.b" $c --trace "$T/c$c.b.trace"
    check "$c cpus: the init powered off (status 0)" [ "$(cat "$T/c$c.a.status")" = 0 ]
    check "$c cpus: its steps passed" grep -q "^pmusim-init: done: 3 ok, 0 failed" "$T/c$c.a.out"
    check "$c cpus: the same console twice" cmp -s "$T/c$c.a.out" "$T/c$c.b.out"
    check "$c cpus: the same trace twice" cmp -s "$T/c$c.a.trace" "$T/c$c.b.trace"
    check "$c cpus: the same --stats twice" cmp -s "$T/c$c.a.err" "$T/c$c.b.err"
    echo "$c cpus: $(grep -c . "$T/c$c.a.trace") trace lines; $(tr '\n' ' ' <"$T/c$c.a.err")"
done
check "4 cpus: every CPU ran" sh -c "[ \$(grep -c '^cpu[0-3]: insns=[1-9]' '$T/c4.a.err') = 4 ]"

# a checkpoint in the middle of the boot (cycle 6 * 10^8: the kernel's initcalls), restored
boot ck 4 --save-at "600000000:$T/mid.ck"
boot rs 4 --restore "$T/mid.ck"
check "checkpoint: taken" [ -s "$T/mid.ck" ]
check "checkpoint: the run that saved it ends as the others" cmp -s "$T/ck.out" "$T/c4.a.out"
check "checkpoint: the restored run's --stats are the uninterrupted run's" cmp -s "$T/rs.err" "$T/c4.a.err"
n=$(wc -c <"$T/rs.out")
check "checkpoint: the restored run's console is the uninterrupted run's tail ($n bytes)" \
    sh -c "[ $n -gt 0 ] && tail -c $n '$T/c4.a.out' | cmp -s - '$T/rs.out'"
finish
