# lib.sh — shared by the end-to-end tests.  Usage in a test: . "$(dirname "$0")/lib.sh" "$@"
# Sets BUILD, SRC, PMUSIM, GUESTS, EXPECTED, T (a scratch directory removed at exit).
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
PMUSIM=$BUILD/pmusim
GUESTS=$BUILD/guest
EXPECTED=$SRC/tests/e2e/expected
ARCHES="x86_64 arm64 ppc32"
T=$(mktemp -d "${TMPDIR:-/tmp}/pmusim-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0
CHECKS=0

fail() {
    FAILS=$((FAILS + 1))
    echo "FAIL: $*"
}

ok() {
    CHECKS=$((CHECKS + 1))
}

# check DESCRIPTION COMMAND...: counts a check, reports a failure
check() {
    desc=$1
    shift
    if "$@"; then ok; else fail "$desc"; fi
}

# run OUTPREFIX ARGS...: runs pmusim; stdout/stderr/status in OUTPREFIX.{out,err,status}
run() {
    _run=$1
    shift
    # a hang is a failure (status 124 or 137), not a test that never ends
    timeout -k 10 "${RUN_TIMEOUT:-600}" "$PMUSIM" "$@" >"$_run.out" 2>"$_run.err"
    echo $? >"$_run.status"
}

# field KEY FILE: the value of KEY=... in the first matching line
field() {
    sed -n "s/.*\\<$1=\\([^ ]*\\).*/\\1/p" "$2" | head -n 1
}

# same_end NAME FULL REST: the restored run REST ends as the uninterrupted run FULL: the same
# stderr (stats, patching summary) and status, its console and trace the tails of FULL's
same_end() {
    check "$1: restored stderr equal (stats, patching summary)" cmp -s "$2.err" "$3.err"
    check "$1: restored status equal" cmp -s "$2.status" "$3.status"
    k=$(wc -c <"$3.out")
    tail -c "$k" "$2.out" >"$3.tailout"
    check "$1: restored console is the tail" cmp -s "$3.tailout" "$3.out"
    k=$(wc -l <"$3.trace")
    tail -n "$k" "$2.trace" >"$3.tailtrace"
    check "$1: restored trace is the tail ($k lines)" cmp -s "$3.tailtrace" "$3.trace"
}

# asm_raw ARCH SRC OUT [OPTIONS...]: assemble SRC for ARCH into the raw binary OUT
asm_raw() {
    _arch=$1 _src=$2 _out=$3
    shift 3
    case $_arch in
    x86_64) as --64 "$@" -o "$_out.o" "$_src" && objcopy -O binary "$_out.o" "$_out" ;;
    arm64) aarch64-linux-gnu-as "$@" -o "$_out.o" "$_src" && aarch64-linux-gnu-objcopy -O binary "$_out.o" "$_out" ;;
    ppc32) powerpc-linux-gnu-as -mregnames "$@" -o "$_out.o" "$_src" && powerpc-linux-gnu-objcopy -O binary "$_out.o" "$_out" ;;
    esac
}

# raw_load_addr ARCH: where the raw test guests (tests/e2e/data/*.S) are linked to run
raw_load_addr() {
    case $1 in x86_64) echo 0x100000 ;; arm64) echo 0x40080000 ;; ppc32) echo 0 ;; esac
}

# need_linux_image ARCH: LINUX_IMAGE, the Debian kernel the Linux tests boot (the environment's
# PMUSIM_LINUX_<ARCH>_IMAGE, which ctest sets; by default in BUILD/linux-cache/ARCH/ where the ctest
# fixture linux/fetch-ARCH puts it: scripts/fetch-kernel.sh, docs/testing.md) and LINUX_VERSION,
# its package version, printed.  Without it the test is skipped (77) with the fetch's message.
# ctest gives the fixture to every e2e script that calls this function.
need_linux_image() {
    if [ -n "${PMUSIM_SANITIZED:-}" ]; then
        # a Linux boot is 10^9 instructions: under ASan and UBSan tens of minutes (make test runs it)
        echo "SKIP: under the sanitizers (a Linux boot is $1's 10^9 instructions; make test runs it)"
        exit 77
    fi
    _up=$(echo "$1" | tr a-z A-Z)
    case $1 in amd64) _file=bzImage ;; powerpc) _file=vmlinux ;; *) _file=Image ;; esac
    eval "LINUX_IMAGE=\${PMUSIM_LINUX_${_up}_IMAGE:-$BUILD/linux-cache/$1/$_file}"
    if [ ! -f "$LINUX_IMAGE" ]; then
        _why=$(cat "$BUILD/linux-cache/$1.error" 2>/dev/null ||
               echo "fetch it: sh scripts/fetch-kernel.sh $1 $BUILD/linux-cache")
        echo "SKIP: no $1 kernel at $LINUX_IMAGE: $_why"
        exit 77
    fi
    LINUX_VERSION=$(cat "$(dirname "$LINUX_IMAGE")/VERSION" 2>/dev/null || echo "unknown version")
    echo "kernel: $LINUX_IMAGE (Debian $(cat "$(dirname "$LINUX_IMAGE")/PACKAGE" 2>/dev/null) $LINUX_VERSION)"
}

# init_cpio INIT OUT: an initramfs of the program INIT as /init, in the newc cpio format
# (usr/gen_init_cpio.c): /dev, /dev/console (c 5 1), /init, the trailer
init_cpio() {
    python3 - "$1" "$2" <<'PY'
import sys
def entry(name, mode, data=b"", rdev=(0, 0)):
    f = [0, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
    b = ("070701" + "".join("%08x" % v for v in f) + name + "\0").encode()
    b += b"\0" * (-len(b) % 4) + data
    return b + b"\0" * (-len(b) % 4)
init = open(sys.argv[1], "rb").read()
out = entry("dev", 0o40755) + entry("dev/console", 0o20600, rdev=(5, 1)) + entry("init", 0o100755, init)
open(sys.argv[2], "wb").write(out + entry("TRAILER!!!", 0))
PY
}

# check_initramfs ARCH: the Linux scenario's initramfs of ARCH, $CPIO (GUESTS/ARCH/initramfs.cpio),
# is reproducible: built twice in other directories, the same bytes as the build's; SKIP (77) when
# the build has none
check_initramfs() {
    [ -f "$CPIO" ] || { echo "SKIP: $CPIO not built (guest/Makefile, LINUX_ARCHES)"; exit 77; }
    for d in g1 g2; do
        make -s -C "$SRC/guest" O="$T/$d" ARCHES=$1 "$T/$d/$1/initramfs.cpio" >"$T/$d.log" 2>&1 ||
            fail "initramfs: make into $T/$d: $(tail -n 3 "$T/$d.log")"
    done
    check "initramfs: built twice, the same bytes" cmp -s "$T/g1/$1/initramfs.cpio" "$T/g2/$1/initramfs.cpio"
    check "initramfs: the same bytes as the build's" cmp -s "$T/g1/$1/initramfs.cpio" "$CPIO"
    check "initramfs: a whole number of 512-byte blocks" [ $(($(wc -c <"$CPIO") % 512)) = 0 ]
    check "initramfs: /init is the init" sh -c "grep -q 'pmusim-init: %s begin' '$CPIO'"
}

# check_scenario_traces OUT: the Linux userspace scenario's tracefs and ftrace lines in the init's
# output OUT (docs/guest-abi.md, "Linux userspace scenario"): the same on every architecture
check_scenario_traces() {
    # tracefs: the format file and the events of the workload
    check "tracefs: sched_switch's format has prev_pid" grep -q "^pmusim-init: tracefs: format: .*field:pid_t prev_pid;" "$1"
    for ev in sched_switch sched_process_fork sched_process_exit; do
        check "tracefs: $ev recorded" grep -q "^pmusim-init: tracefs: events: $ev [1-9]" "$1"
    done
    check "tracefs: trace lines printed" grep -q "^pmusim-init: tracefs: trace: .* sched_[a-z_]*: " "$1"
    check "tracefs: the workload ran" grep -q "^pmusim-init: tracefs: workload: 2 children, 512 bytes through pipes, exit codes sum 1\$" "$1"

    # ftrace: each filtered function traced by name, and vfs_read's graph
    for f in schedule do_sys_openat2 vfs_read; do
        check "ftrace: $f traced" grep -q "^pmusim-init: ftrace: function: $f [1-9]" "$1"
    done
    check "ftrace: the function tracer's lines name a filtered function" \
        grep -Eq "^pmusim-init: ftrace: function: .*: (schedule|do_sys_openat2|vfs_read) <-" "$1"
    check "ftrace: function_graph shows vfs_read() {" grep -q "^pmusim-init: ftrace: function_graph: vfs_read [1-9]" "$1"
}

finish() {
    echo "$(basename "$0"): $CHECKS checks passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
    exit $?
}
