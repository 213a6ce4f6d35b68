#!/bin/sh
# bench/linux.sh — Debian's arm64 kernel booted on 2 CPUs to the root-mount panic: pmusim against
# QEMU TCG, plain and -icount shift=0 (issue 15; docs/benchmarks.md, "Linux").
#
#   sh bench/linux.sh BUILD          env: LINUX_REPS (default 1), PERF=0 (no host profile)
#
# The kernel is the tests' one (scripts/fetch-kernel.sh into BUILD/linux-cache, reused), the
# command line `console=ttyAMA0,1500000 panic=-1` (panic=-1: the panic resets at once, ending
# QEMU's run through -no-reboot instead of spinning forever, and pmusim's through PSCI
# SYSTEM_RESET, at the same point: pmusim alone would end at the panic's last line).
# Each configuration runs LINUX_REPS times, interleaved; medians.  Per row: wall and CPU
# (user+sys) seconds of the whole process (GNU time), whether the log reached the panic, and for
# pmusim the instructions of both CPUs (--stats), MIPS = instructions / wall seconds and
# cpuMIPS = instructions / CPU seconds (the machine is shared: CPU time is the steadier).  QEMU's
# -icount shift=0 (one instruction per ns) sleeps through the guest's idle time in real time
# (sleep=on, its default): its CPU seconds are the work, its wall seconds what a user waits.
#
# Where pmusim's host time goes: `perf record` of one more pmusim run, its samples summed by
# shared object: the engine (libunicorn and the code it translated, which perf names
# `[JIT] tid N` or `[unknown]`), pmusim itself (the hooks, the devices, the models), the
# libraries (libc, ld.so, Capstone, libfdt) and the host kernel.
#
# The whole scenario: when BUILD/guest/arm64/initramfs.cpio exists (the project's own init,
# issue 15 item 4) the same three configurations boot it as the initramfs, with
# LINUX_SCENARIO_APPEND (default the same command line) as the command line; `reached` then
# looks for LINUX_SCENARIO_END in the log (default: any line).  The init must end the run
# (poweroff: PSCI SYSTEM_OFF ends both pmusim and QEMU) or panic (panic=-1 resets).
set -u
BUILD=$(cd "${1:?usage: bench/linux.sh BUILD}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
PMUSIM=$BUILD/pmusim
REPS=${LINUX_REPS:-1}
# the console's speed named: without it Linux's PL011 console runs at 9600 baud on pmusim (the
# divisor at its reset value 0; tests/e2e/test_linux_boot.sh says how), and the boot is then
# the console's line time (14.6 s simulated), which QEMU does not model; 1500000 is the
# fastest the 24 MHz UARTCLK allows
CMDLINE="console=ttyAMA0,1500000 panic=-1"
PANIC="VFS: Unable to mount root fs"
INITRD=$BUILD/guest/arm64/initramfs.cpio
QEMU=${QEMU_SYSTEM_AARCH64:-qemu-system-aarch64}
# the boot budget of pmusim: a ceiling against a boot that never ends
LIMIT=8000000000
# perf's sampling rate: ~1000 samples per host second, enough for a split to 0.1%
PERF_HZ=999
# a scratch directory in the build tree: perf data of a minutes-long run is megabytes
T=$(mktemp -d "$BUILD/linux-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
mips() { awk -v i="$1" -v s="$2" 'BEGIN { if (i != "-" && s > 0) printf "%.1f", i / s / 1e6; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b != "-" && b > 0) printf "%.2f", a / b; else printf "-" }'; }

# timed NAME CMD...: one run; appends its wall and CPU seconds to T/NAME.wall, T/NAME.cpu, its
# console to T/NAME.log (stdout and stderr: QEMU -nographic and pmusim write the console there)
timed() {
    _n=$1
    shift
    /usr/bin/time -o "$T/time" -f '%e %U %S' timeout -s KILL 1800 "$@" >"$T/$_n.log" 2>"$T/$_n.err" </dev/null
    awk '{ print $1 }' "$T/time" >>"$T/$_n.wall"
    awk '{ printf "%.2f\n", $2 + $3 }' "$T/time" >>"$T/$_n.cpu"
}

# pmusim_cmd [INITRD]: pmusim's command for the kernel (and the initramfs), the command line to follow
pmusim_cmd() {
    echo "$PMUSIM --cpus $CPUS --max-insns $LIMIT --stats --quiet ${1:+--initrd $1} --kernel $IMAGE --append"
}
qemu_cmd() {    # qemu_cmd [-icount shift=0] [INITRD]
    _ic=
    [ "$1" = icount ] && _ic="-icount shift=0"
    echo "$QEMU $QMACHINE -smp $CPUS -nographic -no-reboot $_ic -kernel $IMAGE ${2:+-initrd $2} -append"
}

# row NAME LABEL END: the figures of configuration NAME, whose log reached END or not
row() {
    _reached=no
    grep -q "$3" "$T/$1.log" && _reached=yes
    _ins=-
    [ "$1" = pm ] && _ins=$(sed -n 's/.*insns=\([0-9]*\).*/\1/p' "$T/pm.err" | awk '{ s += $1 } END { print s }')
    _w=$(median <"$T/$1.wall")
    _c=$(median <"$T/$1.cpu")
    printf "%-22s %9s %9s %7s %12s %7s %7s\n" "$2" "$_w" "$_c" "$_reached" "$_ins" "$(mips "$_ins" "$_w")" \
        "$(mips "$_ins" "$_c")"
}

# scenario TITLE END [INITRD] APPEND: the three configurations, the rows, the ratios
scenario() {
    _title=$1 _end=$2 _rd=$3 _app=$4
    rm -f "$T"/*.wall "$T"/*.cpu
    for r in $(seq "$REPS"); do
        timed pm $(pmusim_cmd "$_rd") "$_app"
        timed qe $(qemu_cmd plain "$_rd") "$_app"
        timed qi $(qemu_cmd icount "$_rd") "$_app"
    done
    echo
    echo "$_title (median of $REPS; wall and CPU seconds of the whole process)"
    printf "%-22s %9s %9s %7s %12s %7s %7s\n" config wall_s cpu_s reached insns MIPS cpuMIPS
    row pm "pmusim" "$_end"
    row qe "qemu" "$_end"
    row qi "qemu -icount shift=0" "$_end"
    _pw=$(median <"$T/pm.wall")
    echo "pmusim/qemu-icount: $(ratio "$_pw" "$(median <"$T/qi.wall")") wall," \
        "$(ratio "$(median <"$T/pm.cpu")" "$(median <"$T/qi.cpu")") CPU;" \
        "pmusim/qemu: $(ratio "$_pw" "$(median <"$T/qe.wall")") wall"
}

# split: perf's samples of one pmusim boot by shared object, in four shares (and their parts)
split() {
    # perf record's status is the command's: the data file says whether it recorded
    perf record -q -F $PERF_HZ -o "$T/perf.data" -- $(pmusim_cmd) "$CMDLINE" >/dev/null 2>"$T/perf.err" </dev/null
    [ -s "$T/perf.data" ] ||
        { echo "host time split: perf record failed: $(head -n 2 "$T/perf.err" | tr '\n' ' ')"; return; }
    perf report -i "$T/perf.data" --sort dso --stdio -q 2>/dev/null | awk '
        { p = $1; sub(/%/, "", p); $1 = ""; d = $0
          if (d ~ /libunicorn/) u += p
          else if (d ~ /\[JIT\]|\[unknown\]/) j += p
          else if (d ~ /pmusim/) s += p
          else if (d ~ /kernel/) k += p
          else if (d ~ /libc\.so/) c += p
          else if (d ~ /libcapstone/) cs += p
          else o += p }
        END { printf "host time split of a pmusim boot (perf, %d Hz): engine %.1f%% (libunicorn %.1f%%, " \
                     "translated code %.1f%%), pmusim %.1f%%, libraries %.1f%% (libc %.1f%%, Capstone " \
                     "%.1f%%, others %.1f%%), host kernel %.1f%%\n", '"$PERF_HZ"', u + j, u, j, s, c + cs + o,
                     c, cs, o, k }'
}

CPUS=2 QMACHINE="-M virt,gic-version=3 -cpu cortex-a57 -m 1G"
KERNEL=$(sh "$SRC/scripts/fetch-kernel.sh" arm64 "$BUILD/linux-cache")
IMAGE=$(echo "$KERNEL" | awk '{ print $5 }')
[ -f "$IMAGE" ] || { echo "linux: no arm64 kernel (scripts/fetch-kernel.sh failed): skipped"; exit 0; }
command -v "$QEMU" >/dev/null || { echo "linux: $QEMU not installed: skipped"; exit 0; }
echo
echo "linux: Debian $(echo "$KERNEL" | cut -d' ' -f2,3); $($QEMU --version | head -n 1);" \
    "command line \"$CMDLINE\", 2 CPUs"
scenario "boot to the root-mount panic" "$PANIC" "" "$CMDLINE"
if [ "${PERF:-1}" != 0 ] && command -v perf >/dev/null; then
    split
fi
if [ -f "$INITRD" ]; then
    scenario "the whole scenario (initramfs $INITRD)" "${LINUX_SCENARIO_END:-.}" "$INITRD" \
        "${LINUX_SCENARIO_APPEND:-$CMDLINE}"
fi

# x86-64 (issue 16): Debian's amd64 kernel on pmusim's PC board and on QEMU's `-M pc`, one CPU
# (pmusim does not start the others yet: no INIT/SIPI), 128 MiB as the board has, to the
# root-mount panic; `panic=-1` resets at once (pmusim: the ACPI reset register, QEMU:
# -no-reboot).  The same console and command line on both.
KERNEL=$(sh "$SRC/scripts/fetch-kernel.sh" amd64 "$BUILD/linux-cache")
IMAGE=$(echo "$KERNEL" | awk '{ print $5 }')
QEMU=${QEMU_SYSTEM_X86_64:-qemu-system-x86_64}
CMDLINE="console=ttyS0 panic=-1"
CPUS=1 QMACHINE="-M pc -m 128M"
if [ -f "$IMAGE" ] && command -v "$QEMU" >/dev/null; then
    echo
    echo "linux x86-64: Debian $(echo "$KERNEL" | cut -d' ' -f2,3); $($QEMU --version | head -n 1);" \
        "command line \"$CMDLINE\", 1 CPU"
    scenario "boot to the root-mount panic (x86-64)" "$PANIC" "" "$CMDLINE"
    if [ "${PERF:-1}" != 0 ] && command -v perf >/dev/null; then
        split
    fi
else
    echo "linux x86-64: no amd64 kernel or no $QEMU: skipped"
fi
