#!/bin/sh
# repro.sh BUILD_DIR [NAME...] — the minimised reproducers of the pmusim bugs random guests found.
#
# Each reproducer is a tiny raw image (bytes below, everything else zero) and a check of what the
# architecture and docs/guest-abi.md require.  "fixed" ones must pass (a failure is a regression:
# exit status 1); "open" ones are bugs still to fix, reported as KNOWN while they fail and as
# NOW PASSES when they stop failing (then mark them fixed and give them a unit test).
set -u
BUILD=$(cd "$1" && pwd)
shift
PMUSIM=$BUILD/pmusim
T=$(mktemp -d "${TMPDIR:-/tmp}/randguest-repro.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0

# mkimg FILE SIZE OFF:HEX...: a zero image of SIZE bytes with the hex bytes at each offset (hex).
mkimg() {
    _f=$1 _size=$2
    shift 2
    head -c "$_size" /dev/zero >"$_f"
    for _p in "$@"; do
        _esc=$(echo "${_p#*:}" | sed 's/../& /g' | { read -r _bytes; for _b in $_bytes; do printf '\\%03o' $((0x$_b)); done; })
        # shellcheck disable=SC2059
        printf "$_esc" | dd of="$_f" bs=1 seek=$((0x${_p%%:*})) conv=notrunc 2>/dev/null
    done
}

# run NAME ARCH LOAD TIMEOUT OPTIONS...: runs the image $T/NAME.bin; status in st, trace in $T/NAME.trace
run() {
    _n=$1 _arch=$2 _load=$3 _t=$4
    shift 4
    timeout -k 2 "$_t" "$PMUSIM" run --arch "$_arch" --load-addr "$_load" --trace "$T/$_n.trace" "$@" "$T/$_n.bin" \
        >"$T/$_n.out" 2>"$T/$_n.err"
    st=$?
}

clean() {
    ! grep -E -q 'internal error|Sanitizer|runtime error:|MISMATCH' "$T/$1.err" && [ "$st" -lt 124 ]
}

# verdict NAME STATE(fixed|open:WHERE) OK(0|1) WHAT
verdict() {
    case $2 in
        fixed) if [ "$3" -eq 0 ]; then echo "ok    $1"; else echo "FAIL  $1 ($2): $4 (status $st)"; FAILS=$((FAILS + 1)); fi ;;
        *) if [ "$3" -eq 0 ]; then echo "NOW PASSES $1 (${2#open:}): mark it fixed"; else echo "KNOWN $1 (${2#open:}): $4 (status $st)"; fi ;;
    esac
}

want() {
    case " $* " in *" $NAME "*) return 0 ;; esac
    [ -z "$SELECT" ]
}

SELECT="$*"

# x86: #DE in a handler entered through #NP must give #NP again, not #DF / a triple fault (the
# engine kept its exception in flight after pmusim delivered it; fixed in cpu/x86_64.c).
NAME=x86_nested_np; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 12288 0:bc000020000f011c250020100031ff48f7f7 100:5048f7f7 10b1:010800008e10 2000:ff0f001010
    run $NAME x86_64 0x100000 20 --max-insns 1000
    ok=1; [ $st -eq 3 ] || [ $st -eq 4 ]; [ $? -eq 0 ] && clean $NAME && ! grep -q triple-fault "$T/$NAME.trace" &&
        [ "$(grep -c 'name=#NP' "$T/$NAME.trace")" -ge 2 ] && ok=0
    verdict $NAME fixed $ok "want #NP again, no triple fault"
    # Each pass through the handler retires its PUSH, so this is no exception loop: the run must
    # end at --max-insns (the count of the handler's block is lost after the #DE in it).
    ok=1; [ $st -eq 3 ] && ok=0
    verdict ${NAME}_count open:cpu/cpu.c $ok "want --max-insns (3), not exception-loop"
fi

# x86: an exception frame pushed on a stack inside code is five 8-byte stores (the code-write
# chokepoint overran a 16-byte buffer on one 40-byte store; fixed in cpu/x86_64.c lin_write).
# The guest's own 8-byte store to code then comes through the code-write window, an I/O access
# the engine splits in two 4-byte pieces (docs/engine.md, "Memory").
NAME=x86_frame_in_code; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 12288 0:bc000810000f011c25002010000f0bf4 100:488304240248cf 1061:010800008e10 2000:ff0f001010
    run $NAME x86_64 0x100000 20 --max-insns 1000
    ok=1; [ $st -eq 4 ] && clean $NAME && [ "$(grep -c 'code-write.* size=8 ' "$T/$NAME.trace")" -eq 5 ] &&
        [ "$(grep -c 'code-write.* size=4 ' "$T/$NAME.trace")" -eq 2 ] &&
        ! grep -q 'code-write.* size=[1-9][0-9]' "$T/$NAME.trace" && ok=0
    verdict $NAME fixed $ok "want 5 code writes of 8 bytes, 2 of 4, and hlt (4)"
fi

# arm64: DC ZVA to unbacked memory is a precise data abort: ELR is the DC ZVA and the two ADDs
# after it do not run (the access locator did not know DC ZVA writes, and the engine's helper
# ran on past the failed store; fixed in cpu/arm64.c with a trap site).  The handler prints x2.
NAME=arm64_dczva; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 4136 0:0401a8d28400209104c018d5df3f03d5220880d20100a2d221740bd542040091420400910000001400 \
        a00:0320a1d2620000b97f2003d5
    run $NAME arm64 0x40080000 20 --max-insns 1000 --stats --icount-check
    ok=1; [ $st -eq 4 ] && clean $NAME && grep -q 'name=sync from=0x40080018 ' "$T/$NAME.trace" &&
        grep -q 'cpu0: insns=9 ' "$T/$NAME.err" && [ "$(cat "$T/$NAME.out")" = A ] && ok=0
    verdict $NAME fixed $ok "want the abort at the DC ZVA (0x40080018), 9 instructions, console A"
fi

# arm64: MSR DBGBCR0_EL1 arming a breakpoint (E set; here at address 0, with the OS Lock locked
# and MDSCR_EL1 zero, so it can never fire) crashed the host: the engine's write inserted a QEMU
# CPU breakpoint and flushed every translation from inside the running block (docs/engine.md,
# "Debug registers"; fixed in cpu/arm64_debug.c: the debug registers are pmusim's).  The random
# guests' 8% of random system register encodings can write it.
NAME=arm64_dbgbcr; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 24 0:e13c80d29f0010d5a10010d50080b0d2000180f2020000d4
    run $NAME arm64 0x40080000 20 --max-insns 100 --stats --icount-check
    ok=1; [ $st -eq 0 ] && clean $NAME && grep -q 'cpu0: insns=6 ' "$T/$NAME.err" && ok=0
    verdict $NAME fixed $ok "want PSCI SYSTEM_OFF (0) after 6 instructions, not a crash"
fi

# The cut (a limit inside a block) runs on after an exception whose handler lies inside the same
# block: the handler's instructions are counted from the block's start (cpu/cpu.c run_cut).
NAME=x86_cut_exception; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 12288 0:bc000020000f011c250020100031ff48f7f7 100:5048f7f7 10b1:010800008e10 2000:ff0f001010
    run $NAME x86_64 0x100000 20 --max-insns 8 --icount-check --stats
    ok=1; [ $st -eq 3 ] && clean $NAME && grep -q 'cpu0: insns=8 ' "$T/$NAME.err" && ok=0
    verdict $NAME open:cpu/cpu.c $ok "want exactly 8 instructions, icount ok"
fi

# A #PF handler whose first instruction faults on fetch: the exception-loop detector stops the
# CPU, but no block boundary ever came, so the engine never returned (and ignored SIGTERM).
# Fixed for x86 in cpu/x86_64.c (x86_intr stops the engine); arm64 and ppc32 need the same in
# cpu/cpu.c (vcpu_exception_taken), where it belongs.
NAME=x86_pf_storm; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 12288 0:bc000020000f011c250020100048c7042510b00000000000000f20d80f22d88b042500004000f4 \
        10e2:0800008e40 2000:ff0f001010
    run $NAME x86_64 0x100000 10 --max-insns 1000
    ok=1; [ $st -eq 4 ] && clean $NAME && grep -q exception-loop "$T/$NAME.err" && ok=0
    verdict $NAME fixed $ok "want exception-loop (4) within 10 s"
fi

# x86 without an IDT jumps to a non-canonical address: the fetch faults, the delivery escalates to
# a triple fault, which must end the run (the engine retried the fetch for ever once its own
# exception in flight was cleared; fixed in cpu/x86_64.c).
NAME=x86_fetch_triple_fault; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 9 0:48c7c0ffffffffffe0
    run $NAME x86_64 0x100000 10 --max-insns 1000
    ok=1; [ $st -eq 4 ] && clean $NAME && grep -q 'exit status=4 reason=triple-fault' "$T/$NAME.trace" && ok=0
    verdict $NAME fixed $ok "want triple fault (4) within 10 s"
fi

# mfspr rD, 284/285 (TBL/TBU write numbers) runs in the engine, which crashes reading the
# timebase (cpu/ppc32.c traps only 268/269).
NAME=ppc32_mfspr285; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 4 0:7dbd42a6
    run $NAME ppc32 0x0 20 --max-insns 100
    ok=1; [ $st -lt 124 ] && clean $NAME && ok=0
    verdict $NAME fixed $ok "want a program exception (fixed in cpu/ppc32.c, 5f410ee), not a crash"
fi

# FF /3 or FF /5 with a register operand (lcall/ljmp Mp) is #UD; the engine aborts translating it
# ("tcg fatal error").
NAME=x86_ljmp_reg; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 2 0:ffe9
    run $NAME x86_64 0x100000 20 --max-insns 100
    ok=1; [ $st -eq 4 ] && clean $NAME && ok=0
    verdict $NAME open:engine $ok "want #UD (no IDT: triple fault, 4), not SIGABRT"
fi

# stmw to unbacked memory: a precise machine check (the instructions after it do not run) and
# --icount-check agrees (fixed in cpu/cpu.c, 5f410ee).  The 0x200 handler prints r3.
NAME=ppc32_stmw_unbacked; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 768 0:386000413e60cfb262735200bf93000038630001386300014800 200:3c808000986403f848
    run $NAME ppc32 0x0 20 --max-insns 200 --icount-check
    ok=1; [ $st -eq 3 ] && clean $NAME && [ "$(cat "$T/$NAME.out")" = A ] && ok=0
    verdict $NAME fixed $ok "want console A, --max-insns (3) and icount ok"
fi

# --icount-check: a store into the block being executed (here add [rax], al at address 0, after
# jmp 0) restarts the instruction in the engine, and the reference counter counts it twice.
NAME=x86_smc_icount; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 4 0:31c0ffe0
    run $NAME x86_64 0x100000 20 --max-insns 10 --icount-check
    ok=1; [ $st -eq 3 ] && clean $NAME && ok=0
    verdict $NAME open:cpu/cpu.c $ok "want --max-insns (3) and icount ok"
fi

# --icount-check: a limit that ends inside a block at a trapped instruction that faults (here the
# illegal mfspr 284 in a loop through the 0x700 handler): the reference counter is 2 ahead.
NAME=ppc32_cut_trap_fault; if want "$SELECT"; then
    mkimg "$T/$NAME.bin" 2048 0:7c5c42a6 700:60000000600000007c5c42a6
    run $NAME ppc32 0x0 20 --max-insns 5 --icount-check
    ok=1; [ $st -eq 3 ] && clean $NAME && ok=0
    verdict $NAME open:cpu/cpu.c $ok "want --max-insns (3) and icount ok"
fi

echo "repro.sh: $FAILS regressions"
[ $FAILS -eq 0 ]
